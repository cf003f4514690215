# silent: a gloo group is a CPU group; binding the GPU afterwards is not late for it (HAZARDS.md GPU003, gloo backend)
import os

import torch
import torch.distributed as dist


def start(rank_env="LOCAL_RANK"):
    dist.init_process_group(backend="gloo")
    torch.cuda.set_device(int(os.environ[rank_env]))
    stats = torch.zeros(3)
    dist.all_reduce(stats)
    return stats


if __name__ == "__main__":
    start()
