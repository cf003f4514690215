# silent: the global rank decides who logs, never which GPU
import os

import torch
import torch.distributed as dist


def main():
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    dist.init_process_group("nccl")
    if dist.get_rank() == 0:
        print("rank 0 writes the log")
    model = torch.nn.Linear(4, 4).cuda()
    print(model.weight.device)


if __name__ == "__main__":
    main()
