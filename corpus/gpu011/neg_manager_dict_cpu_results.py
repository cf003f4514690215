# silent: each rank moves its logits to the CPU before storing them in the manager dict; host tensors pickle by value.
import torch
import torch.multiprocessing as mp


def evaluate(rank, shared):
    torch.cuda.set_device(rank)
    model = torch.nn.Linear(128, 10).cuda()
    with torch.no_grad():
        logits = model(torch.randn(256, 128, device="cuda"))
    shared[rank] = logits.cpu()
    shared[f"loss_{rank}"] = logits.logsumexp(dim=1).mean().item()


if __name__ == "__main__":
    with mp.Manager() as manager:
        shared = manager.dict()
        mp.spawn(evaluate, args=(shared,), nprocs=2)
        print(torch.cat([shared[r] for r in range(2)]).shape)
