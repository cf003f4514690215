# silent: an instance of a module-level class with __call__ pickles by class name and state, so it is the picklable way to give collate_fn parameters
import torch
from torch.utils.data import DataLoader


class PadCollate:
    def __init__(self, pad_value):
        self.pad_value = pad_value

    def __call__(self, batch):
        return torch.nn.utils.rnn.pad_sequence(batch, batch_first=True, padding_value=self.pad_value)


def main(samples):
    loader = DataLoader(samples, num_workers=2, collate_fn=PadCollate(0), multiprocessing_context="spawn")
    model = torch.nn.Linear(16, 2).cuda()
    for batch in loader:
        model(batch.cuda())


if __name__ == "__main__":
    main([torch.ones(16)] * 4)
