# silent: under fork the workers copy the parent's memory, so they see the flag configure() set
import multiprocessing as mp

import torch

LOAD_IN_8BIT = False


def configure(quantize):
    global LOAD_IN_8BIT
    LOAD_IN_8BIT = quantize


def generate(prompt):
    model = torch.nn.Linear(4096, 4096)
    if LOAD_IN_8BIT:
        model = model.half()
    return model.cuda()(torch.randn(1, 4096, device="cuda")).sum().item()


def main(prompts, quantize):
    configure(quantize)
    with mp.get_context("fork").Pool(2) as pool:
        return pool.map(generate, prompts)


if __name__ == "__main__":
    main(["a", "b"], quantize=True)
