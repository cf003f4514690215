# silent: the start method is set once, first, before any queue is made
import torch
import torch.multiprocessing as mp


def score(rank, queue):
    torch.cuda.set_device(rank)
    queue.put(float(torch.ones(4, device="cuda").sum()))


if __name__ == "__main__":
    mp.set_start_method("spawn")
    results = mp.Queue()
    workers = [mp.Process(target=score, args=(r, results)) for r in range(2)]
    for w in workers:
        w.start()
