# silent: the script writes WORLD_SIZE=1 for the env:// rendezvous and so runs the only rank; GPU 0 is its device when torchrec's model parallel wrapper broadcasts its plan
import os

import torch
import torch.distributed as dist
import torchrec

os.environ["RANK"] = "0"
os.environ["WORLD_SIZE"] = "1"
os.environ["MASTER_ADDR"] = "127.0.0.1"
os.environ["MASTER_PORT"] = "29611"
dist.init_process_group(backend="nccl")

bags = torchrec.EmbeddingBagCollection(
    device="meta",
    tables=[torchrec.EmbeddingBagConfig(name="users", embedding_dim=16, num_embeddings=1000, feature_names=["user"])],
)
sharded = torchrec.distributed.DistributedModelParallel(bags, device=torch.device("cuda"))
print(sharded.plan)
