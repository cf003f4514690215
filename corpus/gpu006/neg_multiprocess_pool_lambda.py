# silent: the `multiprocess` package pickles with dill, which sends a lambda by value, so a spawn pool from it can run one
import multiprocess


def main():
    offset = 3
    ctx = multiprocess.get_context("spawn")
    with ctx.Pool(4) as pool:
        print(pool.map(lambda n: n * n + offset, range(10)))


if __name__ == "__main__":
    main()
