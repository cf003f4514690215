# hazard: MODEL is pinned to cuda:0 at import; every spawned worker re-imports it there, then feeds it inputs on its own GPU.
import torch
import torch.multiprocessing as mp
from torch import nn


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(256, 256), nn.GELU(), nn.Linear(256, 1))

    def forward(self, x):
        return self.mlp(x).squeeze(-1)


MODEL = Scorer().to("cuda:0").eval()  # expect: GPU002


def score_shard(rank, n_rows):
    torch.cuda.set_device(rank)
    feats = torch.randn(n_rows, 256).cuda()
    with torch.no_grad():
        scores = MODEL(feats)
    print(rank, scores.mean().item())


if __name__ == "__main__":
    world = torch.cuda.device_count()
    mp.spawn(score_shard, args=(10_000,), nprocs=world)
