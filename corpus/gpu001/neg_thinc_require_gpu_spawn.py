# silent: the children are started by spawn; each creates its own context with require_gpu(), nothing inherited from the parent's.
import multiprocessing as mp

from thinc.api import require_gpu


def train_shard(shard_id):
    require_gpu(0)
    print("shard", shard_id, "ready on the GPU")


def main():
    require_gpu(0)
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=train_shard, args=(i,)) for i in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()


if __name__ == "__main__":
    main()
