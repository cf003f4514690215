# silent: force=True lets the module-level call run again in each spawned child, and the processes start under the guard
import torch
import torch.multiprocessing as mp

mp.set_start_method("spawn", force=True)


def fill(rank):
    torch.cuda.set_device(rank)
    torch.full((4,), float(rank), device="cuda")


if __name__ == "__main__":
    procs = [mp.Process(target=fill, args=(r,)) for r in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
