# hazard: each process builds its model on its own GPU, then allocates a buffer with device="cuda" (GPU 0)
import multiprocessing as mp

import torch


def embed(gpu, texts):
    device = torch.device("cuda", gpu)
    encoder = torch.nn.Embedding(1000, 64).to(device)
    scratch = torch.zeros(len(texts), 64, device="cuda")  # expect: GPU010
    scratch += encoder(torch.arange(len(texts), device=device))
    return scratch


if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    jobs = [ctx.Process(target=embed, args=(g, ["a", "b"])) for g in range(4)]
    for j in jobs:
        j.start()
    for j in jobs:
        j.join()
