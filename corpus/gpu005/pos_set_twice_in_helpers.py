# hazard: two setup helpers each set the start method; the second call raises
import multiprocessing as mp

import torch


def configure_workers():
    mp.set_start_method("spawn")


def configure_logging():
    mp.set_start_method("forkserver")  # expect: GPU005(error)


def run(rank):
    torch.zeros(1, device=f"cuda:{rank}")


if __name__ == "__main__":
    configure_workers()
    configure_logging()
    mp.Process(target=run, args=(0,)).start()
