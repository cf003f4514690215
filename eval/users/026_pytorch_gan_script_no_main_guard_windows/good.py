import torch
import torchvision.transforms as transforms
from torch.utils.data import DataLoader
from torchvision import datasets

from models import Discriminator, Generator


def main():
    cuda = torch.cuda.is_available()
    generator, discriminator = Generator(), Discriminator()
    if cuda:
        generator.cuda()
        discriminator.cuda()
    dataloader = DataLoader(
        datasets.MNIST("data/mnist", train=True, download=True,
                       transform=transforms.Compose([transforms.Resize(28), transforms.ToTensor()])),
        batch_size=64, shuffle=True, num_workers=8)
    opt_g = torch.optim.Adam(generator.parameters(), lr=2e-4)
    adversarial_loss = torch.nn.BCELoss()
    for epoch in range(200):
        for imgs, _ in dataloader:
            real = imgs.cuda() if cuda else imgs
            z = torch.randn(imgs.size(0), 100, device=real.device)
            opt_g.zero_grad()
            g_loss = adversarial_loss(discriminator(generator(z)), torch.ones(imgs.size(0), 1, device=real.device))
            g_loss.backward()
            opt_g.step()


if __name__ == "__main__":
    main()
