# silent: a CPU-only worker-pool helper built once per batch, but it asks for spawn only while no start method is set yet (get_start_method(allow_none=True) is None), so later batches skip the call
import multiprocessing


class Workers:
    def __init__(self, size):
        if multiprocessing.get_start_method(allow_none=True) is None:
            multiprocessing.set_start_method("spawn")
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
