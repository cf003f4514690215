import os

import torch
from joblib import Parallel, delayed

GPU_COUNT = len([d for d in os.environ.get("CUDA_VISIBLE_DEVICES", "0").split(",") if d])


def fit_one(seed):
    torch.manual_seed(seed)
    device = torch.device("cuda", seed % max(GPU_COUNT, 1))
    net = torch.nn.Sequential(torch.nn.Linear(20, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1)).to(device)
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    x = torch.randn(256, 20, device=device)
    y = torch.randn(256, 1, device=device)
    for _ in range(100):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(net(x), y)
        loss.backward()
        opt.step()
    return loss.item()


if __name__ == "__main__":
    losses = Parallel(n_jobs=4, backend="multiprocessing")(delayed(fit_one)(s) for s in range(8))
    print(losses)
