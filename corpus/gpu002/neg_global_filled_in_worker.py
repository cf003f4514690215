# silent: the global starts as None and each worker fills it with a model placed on its own cuda:{rank}.
import torch
import torch.multiprocessing as mp

MODEL = None
DEVICE = None


def setup_worker(rank):
    global MODEL, DEVICE
    DEVICE = torch.device(f"cuda:{rank}")
    MODEL = torch.nn.LSTM(32, 64, batch_first=True).to(DEVICE)


def handle(rank, sequences):
    setup_worker(rank)
    x = torch.stack(sequences).to(DEVICE)
    with torch.no_grad():
        out, _ = MODEL(x)
    return out[:, -1].cpu()


def worker(rank, n):
    seqs = [torch.randn(20, 32) for _ in range(n)]
    print(rank, handle(rank, seqs).shape)


if __name__ == "__main__":
    mp.spawn(worker, args=(8,), nprocs=torch.cuda.device_count())
