# hazard: the encoder is moved to the GPU at import, which each spawned worker repeats before it narrows its visible devices
import os

import torch
import torch.multiprocessing as mp

ENCODER = torch.nn.Embedding(1000, 64).to("cuda")


def encode(worker, gpus, token_ids):
    os.environ.setdefault("CUDA_VISIBLE_DEVICES", gpus[worker])  # expect: GPU007
    ids = torch.tensor(token_ids, device="cuda")
    return ENCODER(ids).mean()


if __name__ == "__main__":
    mp.spawn(encode, args=(["0", "1"], [1, 2, 3]), nprocs=2)
