# silent: the snapshot is mapped to the rank's own GPU
import os

import torch
import torch.distributed as dist


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    state = torch.load("snapshot.pt", map_location=f"cuda:{local_rank}")
    model = torch.nn.Linear(32, 4).to(local_rank)
    model.load_state_dict(state)


if __name__ == "__main__":
    main()
