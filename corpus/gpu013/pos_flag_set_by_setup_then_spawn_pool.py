# hazard: configure() sets LOAD_IN_8BIT in the parent at run time; the spawned pool workers import the module afresh and read the default False, so every worker loads the full-precision model and runs out of memory
import multiprocessing as mp

import torch

LOAD_IN_8BIT = False


def configure(quantize):
    global LOAD_IN_8BIT
    LOAD_IN_8BIT = quantize


def generate(prompt):
    model = torch.nn.Linear(4096, 4096)
    if LOAD_IN_8BIT:  # expect: GPU013
        model = model.half()
    return model.cuda()(torch.randn(1, 4096, device="cuda")).sum().item()


def main(prompts, quantize):
    configure(quantize)
    with mp.get_context("spawn").Pool(2) as pool:
        return pool.map(generate, prompts)


if __name__ == "__main__":
    main(["a", "b"], quantize=True)
