# silent: only rank 0 reads the written checkpoint back to check it; the other ranks never load it
import os

import torch
import torch.distributed as dist


def check_written(path):
    state = torch.load(path)
    assert "weight" in state


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    layer = torch.nn.Linear(16, 16).cuda()
    if dist.get_rank() == 0:
        torch.save(layer.state_dict(), "layer.pt")
    dist.barrier()
    if dist.get_rank() == 0:
        check_written("layer.pt")
    is_leader = dist.get_rank() == 0
    if not is_leader:
        pass
    else:
        print(torch.load("layer.pt").keys())


if __name__ == "__main__":
    main()
