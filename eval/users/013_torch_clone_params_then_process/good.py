from torch import multiprocessing as mp
from torchvision.models import resnet50


def copy_in_child(rank):
    print(f"worker {rank} started")
    model = resnet50()
    local_copy = [p.clone() for p in model.parameters()]
    print(f"worker {rank} copied {len(local_copy)} tensors")


def main():
    ctx = mp.get_context("spawn")
    model = resnet50()
    ema_copy = [p.clone() for p in model.parameters()]
    swa_copy = [p.clone() for p in model.parameters()]
    print(len(ema_copy), len(swa_copy))
    workers = []
    for rank in range(2):
        proc = ctx.Process(target=copy_in_child, args=(rank,))
        proc.start()
        workers.append(proc)
    for proc in workers:
        proc.join()


if __name__ == "__main__":
    main()
