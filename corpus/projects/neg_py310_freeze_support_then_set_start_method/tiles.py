"""requires-python < 3.13: freeze_support() there checks only for a frozen Windows program and
leaves the start method unset, so choosing fork after it works."""
import multiprocessing


def area(side):
    return side * side


if __name__ == "__main__":
    multiprocessing.freeze_support()
    multiprocessing.set_start_method("fork")
    with multiprocessing.Pool(2) as pool:
        print(pool.map(area, [3, 4, 5]))
