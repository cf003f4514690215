# hazard: the model is moved to cuda:<global rank>, which does not exist past the first node
import os

import torch
import torch.distributed as dist


def build():
    dist.init_process_group("nccl", device_id=torch.device("cuda", int(os.environ["LOCAL_RANK"])))
    device = f"cuda:{dist.get_rank()}"
    return torch.nn.Linear(8, 8).to(device)  # expect: GPU008


if __name__ == "__main__":
    build()
