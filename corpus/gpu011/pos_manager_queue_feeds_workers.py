# hazard: CUDA batches go into a Manager().Queue(); the manager process cannot pickle a CUDA tensor it received again, so the workers' get() fails.
import multiprocessing as mp

import torch


def consume(jobs, rank):
    while True:
        batch = jobs.get()
        if batch is None:
            break
        print(rank, batch.float().mean().item())


def main():
    ctx = mp.get_context("spawn")
    manager = ctx.Manager()
    jobs = manager.Queue()
    workers = [ctx.Process(target=consume, args=(jobs, r)) for r in range(2)]
    for w in workers:
        w.start()
    for step in range(8):
        batch = torch.randint(0, 255, (32, 3, 64, 64), device="cuda")
        jobs.put(batch)  # expect: GPU011
    for _ in workers:
        jobs.put(None)
    for w in workers:
        w.join()


if __name__ == "__main__":
    main()
