# silent: the workers are started by spawn, so each imports cuDF and initialises CUDA itself; nothing is inherited.
import multiprocessing as mp

import cudf


def count_rows(path):
    frame = cudf.read_parquet(path)
    return len(frame)


def main(paths):
    ctx = mp.get_context("spawn")
    with ctx.Pool(4) as pool:
        print(sum(pool.map(count_rows, paths)))


if __name__ == "__main__":
    main(["part-0.parquet", "part-1.parquet"])
