import os

import torch
import torch.distributed as dist


def main(config):
    rank = int(os.environ["RANK"])
    world_size = int(os.environ["WORLD_SIZE"])
    torch.cuda.set_device(rank)
    dist.init_process_group(backend="nccl", init_method="env://", world_size=world_size, rank=rank)
    dist.barrier()
    model = build_model(config).cuda()
    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[rank], broadcast_buffers=False)
    return model


def build_model(config):
    return torch.nn.Sequential(torch.nn.Conv2d(3, 96, 4, 4), torch.nn.Flatten(), torch.nn.LazyLinear(config["classes"]))


if __name__ == "__main__":
    main({"classes": 1000})
