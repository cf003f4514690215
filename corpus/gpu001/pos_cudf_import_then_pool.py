# hazard: `import cudf` initialises the CUDA driver in the parent; the forked pool workers then fail at their first cuDF frame.
from multiprocessing import Pool

import cudf


def count_rows(path):
    frame = cudf.read_parquet(path)
    return len(frame)


def main(paths):
    with Pool(4) as pool:  # expect: GPU001
        print(sum(pool.map(count_rows, paths)))


if __name__ == "__main__":
    main(["part-0.parquet", "part-1.parquet"])
