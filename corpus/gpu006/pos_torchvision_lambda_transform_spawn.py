# hazard: the dataset is pickled for each spawned loader worker with its transforms, and transforms.Lambda holds a lambda
import torch
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


def make_loader(root):
    to_rgb = transforms.Compose([transforms.ToTensor(), transforms.Lambda(lambda x: x.expand(3, -1, -1))])
    images = datasets.ImageFolder(root, transform=to_rgb)
    return DataLoader(images, batch_size=32, num_workers=4, multiprocessing_context="spawn")  # expect: GPU006


if __name__ == "__main__":
    model = torch.nn.Conv2d(3, 16, 3).cuda()
    for x, _ in make_loader("data/train"):
        model(x.cuda())
