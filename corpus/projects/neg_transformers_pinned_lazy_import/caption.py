"""transformers 4.2 imports its models lazily and asks nothing of CUDA at import: each spawned
worker narrows the GPUs it sees before anything touches CUDA, and the narrowing holds."""
import multiprocessing
import os

import torch
from transformers import AutoModel


def caption_on(gpu, name):
    os.environ["CUDA_VISIBLE_DEVICES"] = str(gpu)
    model = AutoModel.from_pretrained(name).to("cuda")
    print(gpu, sum(p.numel() for p in model.parameters()))


if __name__ == "__main__":
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=caption_on, args=(g, "org/captioner")) for g in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    print(torch.__version__)
