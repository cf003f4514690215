# silent: a group of one process (`world_size=1`) has no other rank on GPU 0; the branch before it must not make that 1 look like anything else (HAZARDS.md GPU003, one process)
import torch
import torch.distributed as dist


def smoke_test(verbose=False):
    world_size = 1
    label = "smoke"
    if verbose:
        label = "single-process NCCL smoke test"
    print(label)
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:29533", rank=0, world_size=world_size)
    dist.all_reduce(torch.ones(1, device="cuda"))


if __name__ == "__main__":
    smoke_test()
