"""requires-python >= 3.14: freeze_support() asks the default context for its start method (on
3.14, and 3.13 from 3.13.4, until CPython fixed it), which fixes it; asking for fork after that
raises "context has already been set"."""
import multiprocessing


def area(side):
    return side * side


if __name__ == "__main__":
    multiprocessing.freeze_support()
    multiprocessing.set_start_method("fork")  # expect: GPU005(error)
    with multiprocessing.Pool(2) as pool:
        print(pool.map(area, [3, 4, 5]))
