# silent: the CUDA check runs under the main guard, which spawned workers skip, so each worker's write comes before its first CUDA call
import os

import torch
import torch.multiprocessing as mp


def embed(rank):
    os.environ["CUDA_VISIBLE_DEVICES"] = str(rank)
    return torch.nn.Linear(8, 8).cuda()(torch.ones(1, 8, device="cuda"))


if __name__ == "__main__":
    assert torch.cuda.is_available()
    mp.spawn(embed, nprocs=2)
