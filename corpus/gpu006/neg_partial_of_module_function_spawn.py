# silent: functools.partial of a module-level function pickles by name plus its arguments, so spawned loader workers can receive it (the usual fix for a closure collate_fn)
import functools

import torch
from torch.utils.data import DataLoader


def pad_batch(batch, pad_value):
    return torch.nn.utils.rnn.pad_sequence(batch, batch_first=True, padding_value=pad_value)


def build_loader(samples, pad_value):
    return DataLoader(
        samples,
        batch_size=8,
        num_workers=4,
        collate_fn=functools.partial(pad_batch, pad_value=pad_value),
        multiprocessing_context="spawn",
    )


def train(samples):
    model = torch.nn.Linear(16, 2).cuda()
    for batch in build_loader(samples, pad_value=0):
        model(batch.cuda())
