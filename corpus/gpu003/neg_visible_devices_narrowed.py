# silent: CUDA_VISIBLE_DEVICES is narrowed to LOCAL_RANK before any CUDA use, so each rank sees exactly one GPU as cuda:0.
import os

import torch
import torch.distributed as dist


def bind_visible_gpu():
    os.environ["CUDA_VISIBLE_DEVICES"] = os.environ["LOCAL_RANK"]


def main():
    bind_visible_gpu()
    dist.init_process_group("nccl")
    model = torch.nn.Linear(32, 32).cuda()
    dist.barrier()
    for p in model.parameters():
        dist.broadcast(p.data, src=0)
    print(dist.get_rank(), torch.cuda.device_count())
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
