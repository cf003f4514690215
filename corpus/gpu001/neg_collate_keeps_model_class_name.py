# silent: the collator keeps only the CUDA model's class name and config; the workers never touch CUDA
"""The collator keeps the model's class name for log messages; the workers never touch the model."""
import torch
from torch.utils.data import DataLoader


class NamedCollator:
    def __init__(self, model):
        self.model_name = model.__class__.__name__
        self.hidden = model.config if hasattr(model, "config") else None

    def __call__(self, rows):
        if self.model_name:
            print(f"collating for {self.model_name}")
        return torch.stack(rows)


model = torch.nn.Linear(8, 2).cuda()
loader = DataLoader([torch.zeros(8)] * 64, batch_size=8, num_workers=2, collate_fn=NamedCollator(model))
for batch in loader:
    model(batch.cuda())
