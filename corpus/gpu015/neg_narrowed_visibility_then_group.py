# silent: each rank sees only its own GPU (CUDA_VISIBLE_DEVICES written before CUDA starts), so GPU 0 is the right device (HAZARDS.md GPU003, narrowed visibility)
import os

os.environ["CUDA_VISIBLE_DEVICES"] = os.environ["LOCAL_RANK"]

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402


def main():
    dist.init_process_group("nccl")
    torch.cuda.set_device(0)
    weights = torch.randn(4, 4, device="cuda")
    dist.broadcast(weights, src=0)


if __name__ == "__main__":
    main()
