"""transformers 4.0 imports every torch model at `import transformers`, and one of them asks torch
whether a GPU is present: each spawned worker runs that again when it imports this module, so
its own choice of GPU through the environment comes too late and is ignored."""
import multiprocessing
import os

import torch
from transformers import AutoModel


def caption_on(gpu, name):
    os.environ["CUDA_VISIBLE_DEVICES"] = str(gpu)  # expect: GPU007
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
