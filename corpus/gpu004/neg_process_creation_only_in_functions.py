# silent: the module level only imports, defines and sets constants; the spawn pool is created inside a function that nothing at module level calls, so a child's import starts nothing
import multiprocessing

import cupy as cp

CHUNK_SIZE = 1024
ctx = multiprocessing.get_context("spawn")


def scale(chunk):
    return float(cp.asarray(chunk).sum() * 2)


def scale_all(chunks):
    with ctx.Pool(processes=2) as pool:
        return pool.map(scale, chunks)
