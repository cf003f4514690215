# hazard: Accelerator() already created a CUDA context in the parent, so the DataLoader's forked workers cannot use CUDA for their augmentation
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, Dataset


class NoisyClips(Dataset):
    def __init__(self, clips):
        self.clips = clips

    def __len__(self):
        return len(self.clips)

    def __getitem__(self, i):
        noise = torch.randn(16000, device="cuda")
        return self.clips[i] + noise.cpu()


def train(clips):
    accelerator = Accelerator()
    model = torch.nn.Linear(16000, 8)
    loader = DataLoader(NoisyClips(clips), batch_size=8, num_workers=4)  # expect: GPU001
    model, loader = accelerator.prepare(model, loader)
    for batch in loader:
        model(batch)


if __name__ == "__main__":
    train([torch.zeros(16000) for _ in range(64)])
