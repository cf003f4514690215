# hazard: the NCCL group is created and its first all_reduce runs before Accelerator binds LOCAL_RANK's device, so every rank reduces on GPU 0
import torch
import torch.distributed as dist
from accelerate import Accelerator


def main():
    dist.init_process_group(backend="nccl")  # expect: GPU003(error)
    seed = torch.tensor([1234], device="cuda")
    dist.all_reduce(seed)
    accelerator = Accelerator()
    accelerator.print(seed.item())


if __name__ == "__main__":
    main()
