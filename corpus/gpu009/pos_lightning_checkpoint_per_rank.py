# hazard: Lightning restores the checkpoint to its saved device in every rank of the job before moving it
import os

import lightning as L
import torch


class Classifier(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(8, 3)

    def forward(self, x):
        return self.layer(x)


def predict(path):
    rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(rank)
    model = Classifier.load_from_checkpoint(path)  # expect: GPU009
    model.cuda()
    return model(torch.zeros(1, 8, device="cuda"))


if __name__ == "__main__":
    predict("last.ckpt")
