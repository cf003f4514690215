# hazard: the class attribute `backbone` is built on cuda:0 when the class body runs; per-rank workers use it with cuda:{rank} inputs.
import torch
import torch.multiprocessing as mp
from torch import nn


class DepthEstimator:
    backbone = nn.Sequential(  # expect: GPU002
        nn.Conv2d(3, 32, 3, padding=1),
        nn.ReLU(),
        nn.Conv2d(32, 1, 3, padding=1),
    ).to("cuda:0")

    def __init__(self, device):
        self.device = device

    def predict(self, frames):
        with torch.no_grad():
            return self.backbone(frames.to(self.device))


def run_rank(rank, n_frames):
    estimator = DepthEstimator(device=f"cuda:{rank}")
    frames = torch.rand(n_frames, 3, 240, 320)
    depth = estimator.predict(frames)
    print(rank, depth.shape)


if __name__ == "__main__":
    mp.spawn(run_rank, args=(16,), nprocs=torch.cuda.device_count())
