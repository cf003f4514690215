# hazard: one process per GPU, started from a comprehension, each loading the checkpoint unmapped
import multiprocessing as mp

import torch


def embed(gpu):
    weights = torch.load("encoder.pt")  # expect: GPU009
    print(sum(w.to(f"cuda:{gpu}").sum() for w in weights.values()))


if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    workers = [ctx.Process(target=embed, args=(g,)) for g in range(torch.cuda.device_count())]
    _ = [w.start() for w in workers]
    for w in workers:
        w.join()
