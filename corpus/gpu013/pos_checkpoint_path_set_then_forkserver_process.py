# hazard: select_checkpoint() rebinds CHECKPOINT at run time; under forkserver the child forks from a server that imported the module without that call, so it evaluates the default checkpoint
import multiprocessing as mp

import torch

CHECKPOINT = "base.pt"


def select_checkpoint(name):
    global CHECKPOINT
    CHECKPOINT = name


def evaluate(device_index):
    state = torch.load(CHECKPOINT, map_location=f"cuda:{device_index}")  # expect: GPU013
    print(len(state))


if __name__ == "__main__":
    mp.set_start_method("forkserver")
    select_checkpoint("finetuned.pt")
    p = mp.Process(target=evaluate, args=(0,))
    p.start()
    p.join()
