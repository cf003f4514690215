# silent: a CuPy array pickles as a host copy, so the producer may exit right after put; the receiver builds its own array.
import multiprocessing as mp

import cupy as cp


def simulate(seed, out):
    rng = cp.random.default_rng(seed)
    out.put(rng.standard_normal(4096))


if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    procs = [ctx.Process(target=simulate, args=(s, out)) for s in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    print(sum(float(out.get().mean()) for _ in procs))
