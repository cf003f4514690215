# hazard: a TensorDataset holds CUDA tensors; the DataLoader's forked workers index them in __getitem__ and hit CUDA in the child.
import torch
from torch.utils.data import DataLoader, TensorDataset


def main():
    device = torch.device("cuda")
    features = torch.randn(10_000, 32).to(device)
    labels = torch.randint(0, 2, (10_000,)).to(device)
    dataset = TensorDataset(features, labels)
    loader = DataLoader(dataset, batch_size=256, shuffle=True, num_workers=4)  # expect: GPU001
    model = torch.nn.Linear(32, 2).to(device)
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
    print(loss.item())


if __name__ == "__main__":
    main()
