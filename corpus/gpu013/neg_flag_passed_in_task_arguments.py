# silent: the value the parent computed at run time travels with each task (the fix for the 8-bit flag lost in spawned workers)
import multiprocessing as mp

import torch

LOAD_IN_8BIT = False


def configure(quantize):
    global LOAD_IN_8BIT
    LOAD_IN_8BIT = quantize


def generate(prompt, load_in_8bit):
    model = torch.nn.Linear(4096, 4096)
    if load_in_8bit:
        model = model.half()
    return model.cuda()(torch.randn(1, 4096, device="cuda")).sum().item()


def main(prompts, quantize):
    configure(quantize)
    with mp.get_context("spawn").Pool(2) as pool:
        return pool.starmap(generate, [(p, LOAD_IN_8BIT) for p in prompts])


if __name__ == "__main__":
    main(["a", "b"], quantize=True)
