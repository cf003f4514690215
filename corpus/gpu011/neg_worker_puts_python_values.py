# silent: the worker sends only Python numbers, strings and bools (`.item()`, a class's name, `torch.equal`), which pickle by value; no CUDA memory is shared
import torch
import torch.multiprocessing as mp


def check(rank, results):
    torch.cuda.set_device(rank)
    weight = torch.randn(16, 16, device="cuda")
    restored = weight.clone()
    results.put(
        (
            rank,
            {
                "max_error": (weight - restored).abs().max().item(),
                "kind": type(restored).__name__,
                "same": torch.equal(weight, restored),
                "close": torch.allclose(weight, restored),
            },
        )
    )


if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    procs = [ctx.Process(target=check, args=(r, results)) for r in range(2)]
    for p in procs:
        p.start()
    print([results.get() for _ in procs])
    for p in procs:
        p.join()
