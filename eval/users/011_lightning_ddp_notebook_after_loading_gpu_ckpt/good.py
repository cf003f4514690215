import lightning as L
import torch
from torch.utils.data import DataLoader, TensorDataset


class Regressor(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(16, 1)

    def predict_step(self, batch, batch_idx):
        (x,) = batch
        return self.net(x)


model = Regressor.load_from_checkpoint("checkpoints/last.ckpt", map_location="cpu")
loader = DataLoader(TensorDataset(torch.randn(1024, 16)), batch_size=64)
trainer = L.Trainer(accelerator="gpu", devices=2, strategy="ddp_notebook")
predictions = trainer.predict(model, loader)
