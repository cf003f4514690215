import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader


class CaptionCollate:
    def __init__(self, tokenizer, max_length):
        self.tokenizer, self.max_length = tokenizer, max_length

    def __call__(self, examples):
        ids = self.tokenizer([e["caption"] for e in examples], padding="max_length", max_length=self.max_length,
                             truncation=True, return_tensors="pt").input_ids
        images = torch.stack([e["image"] for e in examples])
        return {"input_ids": ids, "images": images}


class SDDataModule(pl.LightningDataModule):
    def __init__(self, dataset, tokenizer, batch_size=4):
        super().__init__()
        self.dataset, self.tokenizer, self.batch_size = dataset, tokenizer, batch_size

    def train_dataloader(self):
        return DataLoader(self.dataset, batch_size=self.batch_size, shuffle=True, num_workers=4,
                          collate_fn=CaptionCollate(self.tokenizer, 77))
