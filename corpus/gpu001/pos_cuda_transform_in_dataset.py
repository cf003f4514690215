# hazard: a transform class whose __call__ does .cuda() runs inside forked DataLoader workers after the parent used CUDA.
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


class ToGPU:
    """Move the sample to the GPU so the whitening matmul below is fast."""

    def __call__(self, tensor):
        return tensor.cuda()


class Whiten:
    def __init__(self, matrix):
        self.matrix = matrix

    def __call__(self, tensor):
        flat = tensor.view(-1)
        return (self.matrix.to(flat.device) @ flat).view_as(tensor)


def make_loader(root, batch_size, workers):
    tfm = transforms.Compose([
        transforms.ToTensor(),
        ToGPU(),
        Whiten(torch.eye(28 * 28)),
    ])
    train_set = datasets.MNIST(root, train=True, download=True, transform=tfm)
    return DataLoader(train_set, batch_size=batch_size, shuffle=True, num_workers=workers)  # expect: GPU001


def main():
    model = torch.nn.Linear(28 * 28, 10).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for images, labels in make_loader("./data", 64, workers=1):
        logits = model(images.view(images.size(0), -1))
        loss = F.cross_entropy(logits, labels.cuda())
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
