# hazard: the model is on the GPU before the DataLoader forks its workers, and __getitem__ moves each sample to CUDA.
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class SpectrogramDataset(Dataset):
    def __init__(self, waveforms, n_fft=400):
        self.waveforms = waveforms
        self.n_fft = n_fft

    def __len__(self):
        return len(self.waveforms)

    def __getitem__(self, idx):
        wave = self.waveforms[idx].to("cuda")
        spec = torch.stft(wave, self.n_fft, return_complex=True).abs()
        return spec.log1p()


def build_model():
    return nn.Sequential(nn.Flatten(), nn.LazyLinear(10))


def train(epochs=3):
    model = build_model().cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    dataset = SpectrogramDataset([torch.randn(16000) for _ in range(512)])
    loader = DataLoader(dataset, batch_size=32, shuffle=True, num_workers=4)  # expect: GPU001
    for epoch in range(epochs):
        for spec in loader:
            loss = model(spec).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: {loss.item():.4f}")


if __name__ == "__main__":
    train()
