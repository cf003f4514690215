# silent: importing lightning sets PYTORCH_NVML_BASED_CUDA_CHECK=1, so is_available() asks NVML and the forked child may still start CUDA.
import multiprocessing as mp

import lightning as L
import torch


def warm_up(tag):
    x = torch.ones(8, device="cuda")
    print(tag, x.sum().item())


if __name__ == "__main__":
    print("lightning", L.__version__)
    if torch.cuda.is_available():
        proc = mp.get_context("fork").Process(target=warm_up, args=("child",))
        proc.start()
        proc.join()
