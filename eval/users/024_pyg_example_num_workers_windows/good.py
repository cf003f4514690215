import torch
import torch.nn.functional as F
from torch_geometric.datasets import TUDataset
from torch_geometric.loader import DataLoader
from torch_geometric.nn import GCNConv, global_mean_pool


class Net(torch.nn.Module):
    def __init__(self, features, classes):
        super().__init__()
        self.conv = GCNConv(features, 64)
        self.out = torch.nn.Linear(64, classes)

    def forward(self, data):
        x = F.relu(self.conv(data.x, data.edge_index))
        return self.out(global_mean_pool(x, data.batch))


def main():
    dataset = TUDataset("data/TUDataset", name="PROTEINS").shuffle()
    loader = DataLoader(dataset, batch_size=64, shuffle=True, num_workers=4)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = Net(dataset.num_features, dataset.num_classes).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    for epoch in range(1, 51):
        for data in loader:
            data = data.to(device)
            optimizer.zero_grad()
            F.cross_entropy(model(data), data.y).backward()
            optimizer.step()


if __name__ == "__main__":
    main()
