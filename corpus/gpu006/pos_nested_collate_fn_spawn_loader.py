# hazard: the collate function is a closure made inside build_loader; spawned loader workers receive it by pickle, which cannot import `build_loader.<locals>.pad_batch`
import torch
from torch.utils.data import DataLoader


def build_loader(samples, pad_value):
    def pad_batch(batch):
        return torch.nn.utils.rnn.pad_sequence(batch, batch_first=True, padding_value=pad_value)

    return DataLoader(
        samples,
        batch_size=8,
        num_workers=4,
        collate_fn=pad_batch,  # expect: GPU006
        multiprocessing_context="spawn",
    )


def train(samples):
    model = torch.nn.Linear(16, 2).cuda()
    for batch in build_loader(samples, pad_value=0):
        model(batch.cuda())
