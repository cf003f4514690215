# hazard: beside a Python number, the worker sends the CUDA tensor itself and returns: its memory dies with the worker before the parent maps it
import torch
import torch.multiprocessing as mp


def check(rank, results):
    torch.cuda.set_device(rank)
    weight = torch.randn(16, 16, device="cuda")
    results.put((rank, {"norm": weight.norm().item(), "weight": weight}))  # expect: GPU011


if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    procs = [ctx.Process(target=check, args=(r, results)) for r in range(2)]
    for p in procs:
        p.start()
    print([results.get() for _ in procs])
    for p in procs:
        p.join()
