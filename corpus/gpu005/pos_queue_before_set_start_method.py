# hazard: the results queue is made with the default context at import, so the later set_start_method raises "context has already been set"
import torch
import torch.multiprocessing as mp

results = mp.Queue()


def score(rank, queue):
    torch.cuda.set_device(rank)
    queue.put(float(torch.ones(4, device="cuda").sum()))


def main():
    mp.set_start_method("spawn")  # expect: GPU005(error)
    workers = [mp.Process(target=score, args=(r, results)) for r in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()


if __name__ == "__main__":
    main()
