# silent: each rank binds its own GPU before the NCCL group exists, so the plan torchrec's DistributedModelParallel broadcasts travels on that GPU
import os

import torch
import torch.distributed as dist
from torchrec import EmbeddingBagCollection, EmbeddingBagConfig
from torchrec.distributed import DistributedModelParallel


def shard_tables():
    local = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local)
    dist.init_process_group("nccl")
    tables = [
        EmbeddingBagConfig(name="items", embedding_dim=32, num_embeddings=50000, feature_names=["item"])
    ]
    collection = EmbeddingBagCollection(tables=tables, device=torch.device("meta"))
    return DistributedModelParallel(collection, device=torch.device("cuda", local))


if __name__ == "__main__":
    print(shard_tables())
