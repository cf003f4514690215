# hazard: filling a 1024 x 1024 host tensor with zeros goes through torch's parallel fill kernel, which starts the intra-op pool; the pool forked after it runs a reduction over 65536 elements in each worker.
import multiprocessing as mp

import torch


def column_total(seed):
    torch.manual_seed(seed)
    block = torch.rand(256, 256)
    return block.sum().item()


def main():
    canvas = torch.zeros(1024, 1024)
    with mp.Pool(3) as workers:  # expect: GPU014
        print(workers.map(column_total, range(6)), canvas.shape)


if __name__ == "__main__":
    main()
