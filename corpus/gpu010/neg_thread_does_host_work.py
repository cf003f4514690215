# silent: the rank's thread only writes host data to disk; it does no CUDA work, so its unset device is never used
import json
import os
import threading

import torch


def save_metrics(path, metrics):
    with open(path, "w") as handle:
        json.dump(metrics, handle)


def step():
    rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(rank)
    loss = torch.nn.functional.mse_loss(torch.randn(8, device="cuda"), torch.zeros(8, device="cuda"))
    metrics = {"rank": rank, "loss": loss.item()}
    writer = threading.Thread(target=save_metrics, args=(f"metrics-{rank}.json", metrics))
    writer.start()
    writer.join()


if __name__ == "__main__":
    step()
