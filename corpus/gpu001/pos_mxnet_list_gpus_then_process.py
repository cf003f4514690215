# hazard: mx.test_utils.list_gpus() counts GPUs through the CUDA runtime in the parent; the forked children then cannot create arrays on them.
import multiprocessing

import mxnet as mx
import numpy as np


def run_inference(gpu_id, frames):
    ctx = mx.gpu(gpu_id)
    data = mx.nd.array(frames, ctx=ctx)
    print(gpu_id, data.mean().asscalar())


def main():
    gpus = mx.test_utils.list_gpus()
    frames = np.random.rand(16, 3, 64, 64).astype("float32")
    workers = []
    for gpu_id in gpus:
        worker = multiprocessing.Process(target=run_inference, args=(gpu_id, frames))
        worker.start()  # expect: GPU001
        workers.append(worker)
    for worker in workers:
        worker.join()


if __name__ == "__main__":
    main()
