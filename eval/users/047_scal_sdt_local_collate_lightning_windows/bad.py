import pytorch_lightning as pl
import torch
from torch.utils.data import DataLoader


def get_collate_fn(tokenizer, max_length):
    def collate_fn(examples):
        ids = tokenizer([e["caption"] for e in examples], padding="max_length", max_length=max_length,
                        truncation=True, return_tensors="pt").input_ids
        images = torch.stack([e["image"] for e in examples])
        return {"input_ids": ids, "images": images}
    return collate_fn


class SDDataModule(pl.LightningDataModule):
    def __init__(self, dataset, tokenizer, batch_size=4):
        super().__init__()
        self.dataset, self.tokenizer, self.batch_size = dataset, tokenizer, batch_size

    def train_dataloader(self):
        return DataLoader(self.dataset, batch_size=self.batch_size, shuffle=True, num_workers=4,
                          collate_fn=get_collate_fn(self.tokenizer, 77))
