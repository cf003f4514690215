# hazard: `model.cuda()` moves the module in place, so the forked pool workers run a CUDA model
import multiprocessing as mp

import torch

model = torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.ReLU())


def score(batch):
    return model(batch).sum().item()


if __name__ == "__main__":
    model.cuda()
    with mp.Pool(2) as pool:  # expect: GPU001
        print(pool.map(score, [[0.0] * 16, [1.0] * 16]))
