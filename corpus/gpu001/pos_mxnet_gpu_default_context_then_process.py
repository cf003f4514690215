# hazard: inside `with mx.gpu(0):` MXNet allocates the warm-up array on the GPU, so the parent has a CUDA context when it forks the evaluators, whose own GPU arrays then fail in the child
import multiprocessing

import mxnet as mx


def evaluate(shard):
    with mx.gpu(0):
        scores = mx.nd.ones((shard + 1, 16))
        return float(scores.sum().asscalar())


def main():
    with mx.gpu(0):
        warmup = mx.nd.zeros((4, 16))
        print("warm-up total", warmup.sum().asscalar())
    evaluators = [multiprocessing.Process(target=evaluate, args=(s,)) for s in range(3)]
    for proc in evaluators:
        proc.start()  # expect: GPU001
    for proc in evaluators:
        proc.join()


if __name__ == "__main__":
    multiprocessing.set_start_method("fork")
    main()
