# silent: the parent holds CUDA through Accelerator(), but the DataLoader's workers only decode on the CPU (HAZARDS.md, GPU001: a child that never touches CUDA)
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, Dataset


class Waveforms(Dataset):
    def __init__(self, paths):
        self.paths = paths

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        return torch.load(self.paths[i], map_location="cpu")


def train(paths):
    accelerator = Accelerator()
    model = torch.nn.Linear(16000, 8)
    loader = DataLoader(Waveforms(paths), batch_size=8, num_workers=4)
    model, loader = accelerator.prepare(model, loader)
    for batch in loader:
        model(batch)


if __name__ == "__main__":
    train([f"clip_{i}.pt" for i in range(64)])
