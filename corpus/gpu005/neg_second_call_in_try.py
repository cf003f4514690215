# silent: a library may already have set it; the RuntimeError of the second call is caught
import torch
import torch.multiprocessing as mp


def setup():
    mp.set_start_method("spawn")


def run(rank):
    torch.empty(8, device=f"cuda:{rank}")


if __name__ == "__main__":
    setup()
    try:
        mp.set_start_method("spawn")
    except RuntimeError:
        pass
    mp.spawn(run, nprocs=2)
