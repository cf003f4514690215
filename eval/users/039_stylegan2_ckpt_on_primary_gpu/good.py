import argparse

import torch
import torch.distributed as dist

from model import Discriminator, Generator

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--ckpt", default=None)
    parser.add_argument("--local_rank", type=int, default=0)
    args = parser.parse_args()
    torch.cuda.set_device(args.local_rank)
    dist.init_process_group(backend="nccl", init_method="env://")
    generator = Generator(256, 512, 8).to("cuda")
    discriminator = Discriminator(256).to("cuda")
    if args.ckpt is not None:
        ckpt = torch.load(args.ckpt, map_location=lambda storage, loc: storage)
        generator.load_state_dict(ckpt["g"])
        discriminator.load_state_dict(ckpt["d"])
    generator = torch.nn.parallel.DistributedDataParallel(generator, device_ids=[args.local_rank], output_device=args.local_rank)
