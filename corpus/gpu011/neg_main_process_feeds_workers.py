# silent: the main process sends the CUDA batches and joins its consumers before it exits, so the memory the handles name stays alive.
import torch
import torch.multiprocessing as mp


def consume(jobs, results):
    while True:
        batch = jobs.get()
        if batch is None:
            break
        results.put(batch.float().mean().item())


def main():
    ctx = mp.get_context("spawn")
    jobs, results = ctx.Queue(), ctx.Queue()
    workers = [ctx.Process(target=consume, args=(jobs, results)) for _ in range(2)]
    for w in workers:
        w.start()
    for _ in range(8):
        jobs.put(torch.randint(0, 255, (32, 3, 64, 64), device="cuda"))
    for _ in workers:
        jobs.put(None)
    means = [results.get() for _ in range(8)]
    for w in workers:
        w.join()
    print(sum(means) / len(means))


if __name__ == "__main__":
    main()
