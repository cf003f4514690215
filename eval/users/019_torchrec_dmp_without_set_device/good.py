import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torchrec import EmbeddingBagCollection, EmbeddingBagConfig
from torchrec.distributed.model_parallel import DistributedModelParallel


def worker(rank, world_size):
    os.environ["MASTER_ADDR"] = "localhost"
    os.environ["MASTER_PORT"] = "29501"
    torch.cuda.set_device(rank)
    dist.init_process_group(backend="nccl", rank=rank, world_size=world_size)
    tables = [EmbeddingBagConfig(name="t0", embedding_dim=64, num_embeddings=10000, feature_names=["f0"])]
    ebc = EmbeddingBagCollection(tables=tables, device=torch.device("meta"))
    model = DistributedModelParallel(ebc, device=torch.device(f"cuda:{rank}"))
    print(rank, model)
    dist.destroy_process_group()


if __name__ == "__main__":
    mp.spawn(worker, args=(2,), nprocs=2)
