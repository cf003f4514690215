# silent: fork before init: importing lightning makes torch's availability check use NVML, so the parent only asks whether a GPU exists; the model reaches CUDA inside the forked ranks, not before them
import lightning as L
import torch
from torch.utils.data import DataLoader, TensorDataset


class Denoiser(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Linear(8, 8)

    def training_step(self, batch, batch_idx):
        (x,) = batch
        noisy = x + 0.1 * torch.randn_like(x)
        return torch.nn.functional.mse_loss(self.body(noisy), x)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters())


accelerator = "gpu" if torch.cuda.is_available() else "cpu"
loader = DataLoader(TensorDataset(torch.randn(256, 8)), batch_size=16)
trainer = L.Trainer(accelerator=accelerator, devices=2, strategy="ddp_notebook", max_epochs=1)
trainer.fit(Denoiser(), loader)
