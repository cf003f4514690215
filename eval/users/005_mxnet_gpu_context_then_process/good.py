import multiprocessing

import mxnet as mx


def worker_fn(idx):
    with mx.gpu(0):
        b = mx.nd.array([42 + idx])
        print(idx, (b * 2).asnumpy())


if __name__ == "__main__":
    multiprocessing.set_start_method("spawn")
    with mx.gpu(0):
        a = mx.nd.array([1, 2, 3])
        print("parent", a.sum().asscalar())
    procs = [multiprocessing.Process(target=worker_fn, args=(i,)) for i in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
