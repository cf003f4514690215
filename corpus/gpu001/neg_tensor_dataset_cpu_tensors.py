# silent: the model is on CUDA, but the TensorDataset holds CPU tensors; the forked workers only index host memory.
import torch
from torch.utils.data import DataLoader, TensorDataset


def main():
    model = torch.nn.Linear(32, 2).cuda()
    dataset = TensorDataset(torch.randn(10_000, 32), torch.randint(0, 2, (10_000,)))
    loader = DataLoader(dataset, batch_size=256, num_workers=4)
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
        loss.backward()
    print(loss.item())


if __name__ == "__main__":
    main()
