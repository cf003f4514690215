# silent: a group of one process (`world_size=1`) has no other rank to share GPU 0 with (HAZARDS.md GPU003, one process)
import torch
import torch.distributed as dist


def debug_run():
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:29511", rank=0, world_size=1)
    torch.cuda.set_device(0)
    dist.barrier()


if __name__ == "__main__":
    debug_run()
