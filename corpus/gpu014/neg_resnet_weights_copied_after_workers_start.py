# silent: fork before the parent's thread pool starts: the workers are started first, and only then does the parent copy its ResNet-18's weights.
import torch.multiprocessing as mp
from torchvision.models import resnet18


def snapshot_worker(seed):
    net = resnet18(num_classes=10)
    frozen = [w.clone() for w in net.parameters()]
    print(seed, len(frozen))


def main():
    workers = [mp.Process(target=snapshot_worker, args=(s,)) for s in range(3)]
    for w in workers:
        w.start()
    teacher = resnet18(num_classes=10)
    anchor = [w.clone() for w in teacher.parameters()]
    print("anchor tensors:", len(anchor))
    for w in workers:
        w.join()


if __name__ == "__main__":
    main()
