# hazard: a feeder thread iterates a pin_memory loader; the loader pins for the thread's current device, GPU 0, not the rank's GPU
import os
import queue
import threading

import torch
from torch.utils.data import DataLoader, TensorDataset


def feed(loader, out):
    for features, labels in loader:  # expect: GPU010
        out.put((features, labels))
    out.put(None)


def run_rank():
    device_index = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(device_index)
    samples = TensorDataset(torch.randn(256, 8), torch.randint(0, 2, (256,)))
    loader = DataLoader(samples, batch_size=16, pin_memory=True)
    out = queue.Queue(maxsize=2)
    threading.Thread(target=feed, args=(loader, out), daemon=True).start()
    while (pair := out.get()) is not None:
        features = pair[0].cuda(non_blocking=True)
        print(features.mean())


if __name__ == "__main__":
    run_rank()
