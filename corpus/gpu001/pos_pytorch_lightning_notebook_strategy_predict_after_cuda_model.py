# hazard: the encoder is moved to the GPU before the trainer runs; with a ddp_notebook strategy (Lightning's fork launcher) and every visible GPU, predict forks a rank per device from this initialised process, and the ranks use CUDA
import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader


class Embedder(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.encoder = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.Tanh())

    def predict_step(self, batch, batch_idx):
        return self.encoder(batch)


embedder = Embedder()
embedder.encoder.cuda()
batches = DataLoader(torch.randn(2048, 64), batch_size=128)
trainer = pl.Trainer(devices=-1, strategy="ddp_notebook_find_unused_parameters_false")
vectors = trainer.predict(embedder, batches)  # expect: GPU001
