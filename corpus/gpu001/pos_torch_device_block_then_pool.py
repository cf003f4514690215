# hazard: since torch 2.0 `with torch.device("cuda"):` makes CUDA the default device of what the block creates, so building the embedding table there initialises CUDA before the pool forks workers that use the GPU
import multiprocessing as mp

import torch


def encode(batch):
    ids = torch.tensor(batch, device="cuda")
    return ids.float().mean().item()


def main():
    with torch.device("cuda"):
        table = torch.randn(1000, 64)
    with mp.Pool(2) as pool:  # expect: GPU001
        print(pool.map(encode, [[1, 2], [3, 4]]), table.shape)


if __name__ == "__main__":
    main()
