# hazard: the global rank names the device; the file never reads the environment, so there is no local-rank read to put in its place (no fix is offered)
import torch
import torch.distributed as dist


def place(model):
    return model.to(f"cuda:{dist.get_rank()}")  # expect: GPU008


if __name__ == "__main__":
    place(torch.nn.Linear(4, 4))
