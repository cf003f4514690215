# hazard: thinc's require_gpu() creates a CuPy context in the parent; the forked child's own require_gpu() then fails.
import multiprocessing as mp

from thinc.api import require_gpu


def train_shard(shard_id):
    require_gpu(0)
    print("shard", shard_id, "ready on the GPU")


def main():
    require_gpu(0)
    procs = [mp.Process(target=train_shard, args=(i,)) for i in range(2)]
    for p in procs:
        p.start()  # expect: GPU001
    for p in procs:
        p.join()


if __name__ == "__main__":
    main()
