# hazard: the module-level set_start_method runs again in every spawned child, whose start method prepare() already fixed: "context has already been set"
import torch
import torch.multiprocessing as mp

mp.set_start_method("spawn")  # expect: GPU004


def embed(rank, table):
    torch.cuda.set_device(rank)
    return torch.as_tensor(table, device="cuda").mean()


if __name__ == "__main__":
    workers = [mp.Process(target=embed, args=(r, [1.0, 2.0])) for r in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
