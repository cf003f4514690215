# silent: set_start_method("spawn") runs in the main guard before the parent uses CUDA and before any Process starts.
import multiprocessing

import torch


def evaluate_fold(fold, queue):
    device = torch.device("cuda")
    model = torch.nn.Linear(16, 1).to(device)
    x = torch.randn(1000, 16, device=device)
    queue.put((fold, model(x).mean().item()))


def run_folds(k):
    ref = torch.zeros(16).cuda()
    queue = multiprocessing.Queue()
    procs = [multiprocessing.Process(target=evaluate_fold, args=(f, queue)) for f in range(k)]
    for p in procs:
        p.start()
    scores = dict(queue.get() for _ in procs)
    for p in procs:
        p.join()
    return ref.sum().item(), scores


if __name__ == "__main__":
    multiprocessing.set_start_method("spawn")
    print(run_folds(5))
