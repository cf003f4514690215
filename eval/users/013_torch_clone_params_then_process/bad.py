from torch import multiprocessing as mp
from torchvision.models import resnet50


def run_worker(rank):
    print(f"worker {rank} started")
    model = resnet50()
    local_copy = [p.clone() for p in model.parameters()]
    print(f"worker {rank} copied {len(local_copy)} tensors")


def main():
    model = resnet50()
    snapshot_a = [p.clone() for p in model.parameters()]
    snapshot_b = [p.clone() for p in model.parameters()]
    print(len(snapshot_a), len(snapshot_b))
    workers = []
    for rank in range(2):
        proc = mp.Process(target=run_worker, args=(rank,))
        proc.start()
        workers.append(proc)
    for proc in workers:
        proc.join()


if __name__ == "__main__":
    main()
