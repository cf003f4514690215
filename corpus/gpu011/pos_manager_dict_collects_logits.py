# hazard: each rank stores its CUDA logits in a manager dict; the manager process receives them by CUDA IPC handle and cannot hand them out again.
import torch
import torch.multiprocessing as mp


def evaluate(rank, shared):
    torch.cuda.set_device(rank)
    model = torch.nn.Linear(128, 10).cuda()
    inputs = torch.randn(256, 128, device="cuda")
    with torch.no_grad():
        logits = model(inputs)
    shared[rank] = logits  # expect: GPU011


if __name__ == "__main__":
    with mp.Manager() as manager:
        shared = manager.dict()
        mp.spawn(evaluate, args=(shared,), nprocs=2)
        merged = torch.cat([shared[r].cpu() for r in range(2)])
        print(merged.shape)
