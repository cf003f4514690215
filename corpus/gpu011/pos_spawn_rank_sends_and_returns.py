# hazard: every rank started by torch.multiprocessing.spawn puts its CUDA gradient norm tensor and returns; spawn joins them, so the parent reads handles of freed memory.
import torch
import torch.multiprocessing as mp


def local_grad_norms(rank, results):
    device = torch.device("cuda", rank)
    weights = torch.randn(1024, 1024, device=device, requires_grad=True)
    loss = (weights ** 2).sum()
    loss.backward()
    results.put(weights.grad.norm(dim=1))  # expect: GPU011


if __name__ == "__main__":
    results = mp.get_context("spawn").SimpleQueue()
    mp.spawn(local_grad_norms, args=(results,), nprocs=2)
    norms = [results.get() for _ in range(2)]
    print(torch.stack([n.cpu() for n in norms]).mean())
