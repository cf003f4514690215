# hazard: the manager starts under the default context, so the set_start_method after it raises
import torch
import torch.multiprocessing as mp


def collect(rank, shared):
    shared[rank] = float(torch.ones(1, device=f"cuda:{rank}").item())


if __name__ == "__main__":
    manager = mp.Manager()
    shared = manager.dict()
    mp.set_start_method("spawn")  # expect: GPU005(error)
    mp.spawn(collect, args=(shared,), nprocs=2)
