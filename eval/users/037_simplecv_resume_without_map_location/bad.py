import argparse

import torch
import torch.distributed as dist


def resume(model, optimizer, path):
    ckpt = torch.load(path)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    return ckpt["global_step"]


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=0)
    parser.add_argument("--resume", default="")
    args = parser.parse_args()
    torch.cuda.set_device(args.local_rank)
    dist.init_process_group("nccl")
    model = torch.nn.Conv2d(3, 64, 3).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    step = resume(model, optimizer, args.resume) if args.resume else 0
    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[args.local_rank])
