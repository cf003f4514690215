# hazard: a spawn-context pool created at module level is created again inside each of its own workers while they import the script
import multiprocessing

import cupy as cp


def scale(chunk):
    return float(cp.asarray(chunk).sum() * 2)


chunks = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
ctx = multiprocessing.get_context("spawn")
with ctx.Pool(processes=2) as pool:  # expect: GPU004
    totals = pool.map(scale, chunks)
print(sum(totals))
