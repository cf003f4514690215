# hazard: `None` passed as the mapping (the second positional argument) maps nothing: every rank restores the checkpoint onto the GPU it was saved from
import os

import torch
import torch.distributed as dist


def restore(model, path):
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    dist.init_process_group("nccl")
    state = torch.load(path, None)  # expect: GPU009
    model.load_state_dict(state)
    return model


if __name__ == "__main__":
    restore(torch.nn.Linear(4, 4).cuda(), "weights.pt")
