# hazard: set_device directly after init works only because NCCL connects lazily; an early barrier or device_id would break it.
import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--lr", type=float, default=3e-4)
    return p.parse_args()


def main():
    args = parse()
    local_rank = int(os.environ["LOCAL_RANK"])
    dist.init_process_group(backend="nccl", init_method="env://")  # expect: GPU015
    torch.cuda.set_device(local_rank)

    model = torch.nn.Linear(256, 10).cuda()
    model = DistributedDataParallel(model, device_ids=[local_rank])
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
    x = torch.randn(16, 256, device="cuda")
    loss = model(x).logsumexp(dim=1).mean()
    loss.backward()
    opt.step()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
