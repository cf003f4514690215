# hazard: spawn is forced at module level (allowed with force=True), but the worker is started in the script body too: each child starts another one while importing
import multiprocessing as mp

import torch


def warm_up(device_index):
    torch.cuda.set_device(device_index)
    torch.ones(1, device="cuda").add_(1)


mp.set_start_method("spawn", force=True)
proc = mp.Process(target=warm_up, args=(0,))
proc.start()  # expect: GPU004
proc.join()
