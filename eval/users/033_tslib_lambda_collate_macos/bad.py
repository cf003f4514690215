import torch
from torch.utils.data import DataLoader

from data_provider.uea import UEAloader, collate_fn


def data_provider(args, flag):
    shuffle_flag = flag != "TEST"
    data_set = UEAloader(root_path=args.root_path, flag=flag)
    data_loader = DataLoader(
        data_set,
        batch_size=args.batch_size,
        shuffle=shuffle_flag,
        num_workers=args.num_workers,
        drop_last=False,
        collate_fn=lambda x: collate_fn(x, max_len=args.seq_len),
    )
    return data_set, data_loader


def train(args, model):
    _, train_loader = data_provider(args, "TRAIN")
    for batch_x, label, padding_mask in train_loader:
        model(batch_x.float(), padding_mask.float()).sum().backward()
