# hazard: the policy is moved to the GPU in the parent, then rollout workers are forked and build CUDA tensors.
import argparse

import torch
import torch.multiprocessing as mp
import torch.nn as nn


class Policy(nn.Module):
    def __init__(self, obs_dim, n_actions):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, 64), nn.Tanh(), nn.Linear(64, n_actions))

    def forward(self, obs):
        return self.body(obs)


def rollout(worker_id, policy, steps):
    device = torch.device("cuda")
    obs = torch.randn(steps, 8, device=device)
    with torch.no_grad():
        actions = policy(obs).argmax(dim=-1)
    print(f"worker {worker_id}: {actions.bincount().tolist()}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--steps", type=int, default=256)
    args = parser.parse_args()

    device = torch.device("cuda")
    policy = Policy(8, 4).to(device)
    policy.share_memory()

    procs = []
    for worker_id in range(args.workers):
        p = mp.Process(target=rollout, args=(worker_id, policy, args.steps))
        p.start()  # expect: GPU001
        procs.append(p)
    for p in procs:
        p.join()


if __name__ == "__main__":
    main()
