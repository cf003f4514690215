# hazard: PyTorch Geometric's loader starts torch's loader workers; asked for spawn, each re-imports this script, whose top level builds and iterates the loader again while the worker is still starting
import torch
from torch.utils.data import Dataset
from torch_geometric.data import Data
from torch_geometric.loader import DataLoader


class RandomGraphs(Dataset):
    def __len__(self):
        return 40

    def __getitem__(self, i):
        return Data(x=torch.randn(5, 3), edge_index=torch.tensor([[0, 1], [1, 2]]))


loader = DataLoader(RandomGraphs(), batch_size=8, num_workers=2, multiprocessing_context="spawn")  # expect: GPU004
nodes = 0
for batch in loader:
    nodes += batch.num_nodes
print(nodes)
