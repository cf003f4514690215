# hazard: an explicit fork context Pool is created after set_device; the pooled scoring function allocates on the GPU.
from multiprocessing import get_context

import torch

LOCAL_GPU = 0


def score(rows):
    t = torch.tensor(rows, device=f"cuda:{LOCAL_GPU}")
    return t.softmax(dim=-1).max(dim=-1).values.tolist()


def chunks(items, size):
    for start in range(0, len(items), size):
        yield items[start:start + size]


def run(rows):
    torch.cuda.set_device(LOCAL_GPU)
    ctx = get_context("fork")
    pool = ctx.Pool(processes=4)  # expect: GPU001
    try:
        out = []
        for part in pool.imap(score, chunks(rows, 128)):
            out.extend(part)
        return out
    finally:
        pool.close()
        pool.join()


if __name__ == "__main__":
    print(len(run([[0.1, 0.2, 0.7]] * 1000)))
