# silent: fork before init: `with torch.device("cpu"):` keeps the table in host memory, so the parent has not touched CUDA when the pool forks its workers
import multiprocessing as mp

import torch


def encode(batch):
    ids = torch.tensor(batch, device="cuda")
    return ids.float().mean().item()


def main():
    torch.set_num_threads(1)
    with torch.device("cpu"):
        table = torch.randn(1000, 64)
    with mp.Pool(2) as pool:
        print(pool.map(encode, [[1, 2], [3, 4]]), table.shape)


if __name__ == "__main__":
    main()
