# silent: the pool is created in main(), which only the guarded line calls
import multiprocessing

import cupy as cp


def scale(chunk):
    return float(cp.asarray(chunk).sum() * 2)


def main():
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(processes=2) as pool:
        print(sum(pool.map(scale, [[1.0], [2.0], [3.0]])))


if __name__ == "__main__":
    main()
