"""`jobs` has no __init__.py (a namespace package); only its CPU module is imported before the pool."""
from multiprocessing import Pool

import jobs.cpu


def main(blobs):
    with Pool(8) as pool:
        digests = pool.map(jobs.cpu.digest, blobs)
    import jobs.gpu

    return digests, jobs.gpu.model


if __name__ == "__main__":
    main([b"a", b"b"])
