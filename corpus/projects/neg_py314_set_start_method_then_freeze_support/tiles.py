"""requires-python >= 3.14: the start method is chosen first, so freeze_support() only reads it."""
import multiprocessing


def area(side):
    return side * side


if __name__ == "__main__":
    multiprocessing.set_start_method("fork")
    multiprocessing.freeze_support()
    with multiprocessing.Pool(2) as pool:
        print(pool.map(area, [3, 4, 5]))
