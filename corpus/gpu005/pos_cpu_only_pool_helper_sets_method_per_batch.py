# hazard: no GPU library anywhere, yet the program fails on its own: each batch builds a fresh worker-pool helper whose constructor asks for spawn, and the second helper's call finds the start method fixed by the first and raises "context has already been set"
import multiprocessing


class Workers:
    def __init__(self, size):
        multiprocessing.set_start_method("spawn")  # expect: GPU005(error)
        self.pool = multiprocessing.Pool(size)

    def squares(self, values):
        return self.pool.map(square, values)

    def shutdown(self):
        self.pool.close()
        self.pool.join()


def square(x):
    return x * x


def run_batches(batches):
    totals = []
    for batch in batches:
        workers = Workers(3)
        totals.append(sum(workers.squares(batch)))
        workers.shutdown()
    return totals


if __name__ == "__main__":
    print(run_batches([[1, 2], [3, 4], [5, 6]]))
