# hazard: the ranks join an NCCL group and hand their embedding tables to torchrec's DistributedModelParallel without binding a GPU first; its sharding planner broadcasts the plan on the current device, GPU 0 on every rank
import os

import torch
import torch.distributed as dist
from torchrec import EmbeddingBagCollection, EmbeddingBagConfig
from torchrec.distributed import DistributedModelParallel


def shard_tables():
    local = int(os.environ["LOCAL_RANK"])
    dist.init_process_group("nccl")  # expect: GPU003(error)
    tables = [
        EmbeddingBagConfig(name="items", embedding_dim=32, num_embeddings=50000, feature_names=["item"])
    ]
    collection = EmbeddingBagCollection(tables=tables, device=torch.device("meta"))
    return DistributedModelParallel(collection, device=torch.device("cuda", local))


if __name__ == "__main__":
    print(shard_tables())
