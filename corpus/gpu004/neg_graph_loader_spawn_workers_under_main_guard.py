# silent: spawn under the main guard: the graph loader is built and iterated under `if __name__ == "__main__":`, so a spawned worker that re-imports the script only defines the helper
import torch
from torch_geometric.data import Data
from torch_geometric.loader import DataLoader


def count_nodes():
    graphs = [Data(x=torch.randn(5, 3), edge_index=torch.tensor([[0, 1], [1, 2]])) for _ in range(40)]
    loader = DataLoader(graphs, batch_size=8, num_workers=2, multiprocessing_context="spawn")
    return sum(batch.num_nodes for batch in loader)


if __name__ == "__main__":
    print(count_nodes())
