import multiprocessing


def crunch(n):
    return sum(i * i for i in range(n))


if __name__ == "__main__":
    multiprocessing.freeze_support()
    multiprocessing.set_start_method("fork")
    with multiprocessing.Pool(4) as pool:
        print(pool.map(crunch, [10_000, 20_000, 30_000]))
