# hazard: CuPy arrays are created in the parent (context created, no fork guard) and the forked child computes on them.
import multiprocessing as mp

import cupy as cp
import numpy as np


def reduce_block(block, out_queue):
    total = cp.asnumpy(cp.sum(block * block))
    out_queue.put(float(total))


def main(n_blocks=4):
    host = np.random.rand(n_blocks, 1_000_000).astype(np.float32)
    queue = mp.Queue()
    procs = []
    for i in range(n_blocks):
        device_block = cp.asarray(host[i])
        proc = mp.Process(target=reduce_block, args=(device_block, queue))
        proc.start()  # expect: GPU001
        procs.append(proc)
    sums = [queue.get() for _ in procs]
    for proc in procs:
        proc.join()
    print(sum(sums))


if __name__ == "__main__":
    main()
