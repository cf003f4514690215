from multiprocessing import Pool, set_start_method


class MultiProcessingPool:
    def __init__(self, processes):
        try:
            set_start_method("fork")
        except RuntimeError:
            pass
        self.pool = Pool(processes=processes)

    def run(self, fn, jobs):
        return self.pool.map(fn, jobs)

    def close(self):
        self.pool.close()
        self.pool.join()


def simulate(config):
    return f"ran {config}"


def ensemble(configs, replicas=2):
    results = []
    for _ in range(replicas):
        pool = MultiProcessingPool(processes=4)
        results.extend(pool.run(simulate, configs))
        pool.close()
    return results


if __name__ == "__main__":
    print(ensemble(["a", "b", "c"]))
