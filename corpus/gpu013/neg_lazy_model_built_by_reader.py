# silent: the parent filled the lazy global at run time, but the reading function fills it itself when empty: the spawned child builds its own model
import multiprocessing as mp

import torch

_MODEL = None


def get_model():
    global _MODEL
    if _MODEL is None:
        _MODEL = torch.nn.Linear(16, 16).cuda()
    return _MODEL


def embed(row):
    return get_model()(torch.randn(1, 16, device="cuda")).sum().item()


if __name__ == "__main__":
    get_model()
    with mp.get_context("spawn").Pool(2) as pool:
        print(pool.map(embed, range(4)))
