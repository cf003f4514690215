# silent: the cached loader takes the device as its key, so each worker gets a copy on the GPU it chose.
import functools

import torch
from torch.multiprocessing import get_context


@functools.lru_cache(maxsize=None)
def load_ranker(device):
    net = torch.nn.Bilinear(64, 64, 1)
    return net.to(device).eval()


def rank_pairs(gpu, n_pairs, out):
    device = f"cuda:{gpu}"
    ranker = load_ranker(device)
    q = torch.randn(n_pairs, 64, device=device)
    d = torch.randn(n_pairs, 64, device=device)
    with torch.no_grad():
        out.put((gpu, ranker(q, d).mean().item()))


if __name__ == "__main__":
    ctx = get_context("spawn")
    out = ctx.Queue()
    procs = [ctx.Process(target=rank_pairs, args=(g, 1000, out)) for g in range(torch.cuda.device_count())]
    for p in procs:
        p.start()
    print(sorted(out.get() for _ in procs))
    for p in procs:
        p.join()
