# hazard: the class weights are computed on the GPU in this process, which creates a CUDA context; the ddp_fork strategy then forks one rank per device when fit runs, and each forked rank moves the model to its GPU in a child of an initialised parent
import lightning as L
import torch
from torch.utils.data import DataLoader, TensorDataset


class Classifier(L.LightningModule):
    def __init__(self, weights):
        super().__init__()
        self.layer = torch.nn.Linear(32, 3)
        self.register_buffer("weights", weights)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.cross_entropy(self.layer(x), y, weight=self.weights)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.05)


def main():
    labels = torch.randint(0, 3, (512,))
    counts = torch.bincount(labels.cuda(), minlength=3).float()
    weights = (counts.sum() / counts).cpu()
    data = DataLoader(TensorDataset(torch.randn(512, 32), labels), batch_size=32)
    trainer = L.Trainer(accelerator="cuda", devices=4, strategy="ddp_fork", max_epochs=2)
    trainer.fit(Classifier(weights), data)  # expect: GPU001


if __name__ == "__main__":
    main()
