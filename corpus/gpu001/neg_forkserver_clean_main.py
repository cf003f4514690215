# silent: forkserver with no CUDA at module level of __main__; the parent's CUDA work sits inside the main guard.
import multiprocessing as mp

import torch


def stats(seed, out):
    torch.manual_seed(seed)
    v = torch.randn(1 << 20, device="cuda")
    out.put((seed, v.std().item()))


def main():
    baseline = torch.randn(1 << 20, device="cuda").std().item()
    ctx = mp.get_context("forkserver")
    out = ctx.Queue()
    procs = [ctx.Process(target=stats, args=(s, out)) for s in range(4)]
    for p in procs:
        p.start()
    results = [out.get() for _ in procs]
    for p in procs:
        p.join()
    print(baseline, results)


if __name__ == "__main__":
    main()
