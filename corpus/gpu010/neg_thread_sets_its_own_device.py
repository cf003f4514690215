# silent: the thread sets the rank's device itself before its CUDA work, so "current" means the rank's GPU there too
import os
import threading

import torch


def release_when_idle(device, idle):
    torch.cuda.set_device(device)
    idle.wait()
    torch.cuda.synchronize()
    torch.cuda.empty_cache()


def serve():
    device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
    torch.cuda.set_device(device)
    idle = threading.Event()
    threading.Thread(target=release_when_idle, args=(device, idle)).start()
    weights = torch.randn(64, 64, device="cuda")
    print(weights.sum())
    idle.set()


if __name__ == "__main__":
    serve()
