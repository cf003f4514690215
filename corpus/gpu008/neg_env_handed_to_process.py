# silent: each child gets an environment whose rendezvous host is localhost: one machine, global rank = local rank
import multiprocessing
import os

import torch
import torch.distributed as dist


def child(env):
    os.environ.update(env)
    rank = int(os.environ["RANK"])
    device = torch.device(f"cuda:{rank}")
    torch.cuda.set_device(device)
    dist.init_process_group("nccl")
    torch.ones(3, device=device)


def test_pair():
    procs = []
    for i in range(2):
        env = {"RANK": str(i), "WORLD_SIZE": "2", "MASTER_ADDR": "localhost", "MASTER_PORT": "29600"}
        p = multiprocessing.Process(target=child, args=(env,))
        p.start()
        procs.append(p)
    for p in procs:
        p.join()
