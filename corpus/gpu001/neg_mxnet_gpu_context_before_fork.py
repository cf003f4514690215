# silent: mx.gpu(i) only names a context; the parent allocates nothing on it, so each forked worker starts CUDA itself.
import multiprocessing as mp

import mxnet as mx


def fill(ctx, n):
    block = mx.nd.zeros((n, n), ctx=ctx)
    block[:] = 1.0
    print(ctx, block.sum().asscalar())


if __name__ == "__main__":
    contexts = [mx.gpu(i) for i in range(2)]
    procs = [mp.Process(target=fill, args=(ctx, 512)) for ctx in contexts]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
