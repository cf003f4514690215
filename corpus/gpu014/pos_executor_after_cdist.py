# hazard: torch.cdist on host tensors in the parent, then a fork-based ProcessPoolExecutor whose tasks call torch.matmul.
from concurrent.futures import ProcessPoolExecutor

import torch


def similarity(block):
    queries = torch.randn(block, 128)
    keys = torch.randn(128, 512)
    return torch.matmul(queries, keys).max().item()


def run():
    points = torch.randn(2000, 3)
    distances = torch.cdist(points, points)
    print("closest pair", distances.fill_diagonal_(float("inf")).min().item())
    with ProcessPoolExecutor(max_workers=4) as executor:  # expect: GPU014
        print(list(executor.map(similarity, [64, 128, 256])))


if __name__ == "__main__":
    run()
