# silent: fork before init: the forked ranks are started and joined by fit before this process touches the GPU; only the evaluation afterwards moves the model to CUDA
import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader, TensorDataset


class Regressor(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.head = torch.nn.Linear(10, 1)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.mse_loss(self.head(x), y)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


if __name__ == "__main__":
    model = Regressor()
    data = DataLoader(TensorDataset(torch.randn(400, 10), torch.randn(400, 1)), batch_size=20)
    pl.Trainer(accelerator="gpu", devices=2, strategy="ddp_fork", max_epochs=1).fit(model, data)
    model.cuda().eval()
    with torch.no_grad():
        print(model(torch.randn(5, 10, device="cuda")))
