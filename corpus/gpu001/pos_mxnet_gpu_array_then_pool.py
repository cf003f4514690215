# hazard: an MXNet array is allocated on mx.gpu(0) in the parent before Pool forks, and each worker allocates on the GPU again.
from multiprocessing import Pool

import mxnet as mx
import numpy as np


def score_batch(path):
    batch = mx.nd.array(np.load(path), ctx=mx.gpu(0))
    return (batch * batch).sum().asscalar()


def main(paths):
    ctx = mx.gpu(0)
    weights = mx.nd.ones((256, 256), ctx=ctx)
    print("warm-up norm:", weights.norm().asscalar())
    pool = Pool(4)  # expect: GPU001
    scores = pool.map(score_batch, paths)
    pool.close()
    pool.join()
    print(sum(scores))


if __name__ == "__main__":
    main([f"batch_{i}.npy" for i in range(8)])
