# silent: fork before init does not apply, nothing is forked: with one job joblib runs each call in this process, whatever the backend, so the GPU work happens where CUDA was initialised
import torch
from joblib import Parallel, delayed

scale = torch.full((4,), 2.0, device="cuda")


def scaled(v):
    return (torch.full((4,), float(v), device="cuda") * scale).sum().item()


if __name__ == "__main__":
    print(Parallel(n_jobs=1, backend="multiprocessing")(delayed(scaled)(v) for v in range(5)))
