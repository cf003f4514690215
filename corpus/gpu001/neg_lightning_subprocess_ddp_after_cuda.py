# silent: spawned children start clean: the plain ddp strategy starts each further rank as a new run of this script, a fresh interpreter, so the GPU statistics computed here do not reach them
import lightning as L
import torch
from torch.utils.data import DataLoader, TensorDataset


class Scaler(L.LightningModule):
    def __init__(self, mean):
        super().__init__()
        self.proj = torch.nn.Linear(16, 1)
        self.mean = mean

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.l1_loss(self.proj(x - self.mean), y)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.01)


if __name__ == "__main__":
    inputs = torch.randn(1000, 16)
    mean = inputs.cuda().mean(dim=0).cpu()
    data = DataLoader(TensorDataset(inputs, torch.randn(1000, 1)), batch_size=50)
    trainer = L.Trainer(accelerator="gpu", devices=2, strategy="ddp", max_epochs=3)
    trainer.fit(Scaler(mean), data)
