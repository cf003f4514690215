"""The package lives in python/ (found through `[project] name`); importing it allocates with CuPy."""
import multiprocessing

import fastembed_rs
from fastembed_rs.runtime import run


def main(chunks):
    pool = multiprocessing.Pool(2)  # expect: GPU001
    return pool.map(run, chunks)


if __name__ == "__main__":
    main([[1, 2], [3, 4]])
