# silent: accelerate's Accelerator binds LOCAL_RANK's device under the launcher; the group created after it (when accelerate made none) runs the all_reduce on that rank's GPU (HAZARDS.md GPU003, device bindings come in many spellings)
import torch
import torch.distributed as dist
from accelerate import Accelerator


def main():
    accelerator = Accelerator()
    if not dist.is_initialized():
        dist.init_process_group(backend="nccl")
    loss_sum = torch.ones(1, device="cuda")
    dist.all_reduce(loss_sum)
    accelerator.print(loss_sum.item())


if __name__ == "__main__":
    main()
