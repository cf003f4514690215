# hazard: the normalisation constants are a cuda:0 tensor at import; workers on cuda:{i} mix them with their own tensors.
import torch
from torch.multiprocessing import get_context

MEAN_STD = torch.tensor([[0.485, 0.456, 0.406], [0.229, 0.224, 0.225]], device="cuda:0")  # expect: GPU002


def normalise(batch):
    mean = MEAN_STD[0].view(1, 3, 1, 1)
    std = MEAN_STD[1].view(1, 3, 1, 1)
    return (batch - mean) / std


def preprocess_worker(gpu_id, n_batches, done):
    dev = f"cuda:{gpu_id}"
    for _ in range(n_batches):
        batch = torch.rand(32, 3, 224, 224, device=dev)
        normalise(batch)
    done.put(gpu_id)


if __name__ == "__main__":
    ctx = get_context("spawn")
    done = ctx.SimpleQueue()
    workers = [ctx.Process(target=preprocess_worker, args=(i, 10, done)) for i in range(torch.cuda.device_count())]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
