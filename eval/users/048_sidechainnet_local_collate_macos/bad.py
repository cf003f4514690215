import torch
from torch.utils.data import DataLoader


def get_collate_fn(aggregate_input, seqs_as_onehot):
    def collate_fn(batch):
        ids, seqs, angles = zip(*batch)
        lengths = [len(s) for s in seqs]
        padded = torch.nn.utils.rnn.pad_sequence([torch.as_tensor(s) for s in seqs], batch_first=True)
        if seqs_as_onehot:
            padded = torch.nn.functional.one_hot(padded, 21)
        return ids, padded, lengths, angles
    return collate_fn


def get_dataloaders(dataset, batch_size=32, num_workers=2):
    collate_fn = get_collate_fn(aggregate_input=True, seqs_as_onehot=True)
    return {"train": DataLoader(dataset, batch_size=batch_size, num_workers=num_workers, collate_fn=collate_fn)}


if __name__ == "__main__":
    d = get_dataloaders([("p1", [1, 2, 3], [0.1, 0.2, 0.3])] * 64)
    data = [batch for batch in d["train"]]
