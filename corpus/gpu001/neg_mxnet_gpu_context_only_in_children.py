# silent: fork before init: the parent's warm-up runs under `with mx.cpu():` and allocates in host memory, so only the forked evaluators create CUDA contexts, each its own
import multiprocessing

import mxnet as mx


def evaluate(shard):
    with mx.gpu(0):
        scores = mx.nd.ones((shard + 1, 16))
        return float(scores.sum().asscalar())


def main():
    with mx.cpu():
        warmup = mx.nd.zeros((4, 16))
        print("warm-up total", warmup.sum().asscalar())
    evaluators = [multiprocessing.Process(target=evaluate, args=(s,)) for s in range(3)]
    for proc in evaluators:
        proc.start()
    for proc in evaluators:
        proc.join()


if __name__ == "__main__":
    multiprocessing.set_start_method("fork")
    main()
