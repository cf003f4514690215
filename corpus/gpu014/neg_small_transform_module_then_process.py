# silent: the parent's own module keeps two small host tensors and no layer; calling it subtracts and divides 3 x 32 x 32 elements on the calling thread, so no pool exists when the worker is forked.
import multiprocessing as mp

import torch


class Standardise(torch.nn.Module):
    def __init__(self, mean, std):
        super().__init__()
        self.mean = torch.tensor(mean).view(-1, 1, 1)
        self.std = torch.tensor(std).view(-1, 1, 1)

    def forward(self, image):
        return (image - self.mean) / self.std


def embed(seed):
    torch.manual_seed(seed)
    patches = torch.rand(16, 48)
    return (patches @ torch.rand(48, 8)).norm().item()


if __name__ == "__main__":
    standardise = Standardise([0.5, 0.4, 0.3], [0.2, 0.2, 0.2])
    print(standardise(torch.rand(3, 32, 32)).mean().item())
    worker = mp.Process(target=embed, args=(7,))
    worker.start()
    worker.join()
