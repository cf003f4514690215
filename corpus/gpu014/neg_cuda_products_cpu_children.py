# silent: the parent's matrix products run on CUDA tensors, which never start torch's CPU pool; the fork happens before any CPU product.
import multiprocessing as mp

import torch


def project(seed):
    torch.manual_seed(seed)
    return (torch.randn(32, 256) @ torch.randn(256, 64)).norm().item()


if __name__ == "__main__":
    with mp.Pool(4) as pool:
        print(pool.map(project, range(8)))
    features = torch.randn(4096, 256, device="cuda")
    print((features.T @ features).trace().item())
