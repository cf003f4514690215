# hazard: each torchrun rank restores the snapshot onto the GPU it was saved from (cuda:0), whatever device it set
import os

import torch
import torch.distributed as dist


def resume(model, path):
    state = torch.load(path)  # expect: GPU009
    model.load_state_dict(state["model"])
    return state["epoch"]


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    model = torch.nn.Linear(32, 4).cuda()
    start = resume(model, "snapshot.pt")
    print(start)


if __name__ == "__main__":
    main()
