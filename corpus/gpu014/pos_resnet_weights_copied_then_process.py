# hazard: the parent keeps a snapshot of a torchvision ResNet-18's weights (copies of tensors of millions of elements use torch's thread pool), then forks workers that snapshot their own model.
import torch.multiprocessing as mp
from torchvision.models import resnet18


def snapshot_worker(seed):
    net = resnet18(num_classes=10)
    frozen = [w.clone() for w in net.parameters()]
    print(seed, len(frozen))


def main():
    teacher = resnet18(num_classes=10)
    anchor = [w.clone() for w in teacher.parameters()]
    print("anchor tensors:", len(anchor))
    workers = [mp.Process(target=snapshot_worker, args=(s,)) for s in range(3)]
    for w in workers:
        w.start()  # expect: GPU014
    for w in workers:
        w.join()


if __name__ == "__main__":
    main()
