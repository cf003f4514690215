# hazard: no backend given (NCCL is picked for CUDA) and no device bound; the "cuda" buffers and broadcast land on GPU 0.
import os

import torch
import torch.distributed as dist

WORLD = int(os.environ.get("WORLD_SIZE", "1"))


def sync_embeddings(table):
    dist.broadcast(table, src=0)
    return table


def main():
    dist.init_process_group(init_method="env://")  # expect: GPU003(error)
    table = torch.zeros(50_000, 128, device="cuda")
    if dist.get_rank() == 0:
        table.normal_()
    sync_embeddings(table)
    print(dist.get_rank(), WORLD, table.std().item())


if __name__ == "__main__":
    main()
