"""Asks torch.multiprocessing for fork on purpose (the project keeps fork for its loaders under
Python 3.14), then maps with datasets, which forks through `multiprocess` whatever that call says.
The call on the other layer is not the mistake; the fork after the model went to the GPU is."""
import torch
import torch.multiprocessing as mp
from datasets import load_dataset

from features import add_embeddings


def main():
    mp.set_start_method("fork")
    model = torch.nn.Linear(16, 4).cuda()
    rows = load_dataset("json", data_files="rows.jsonl", split="train")
    rows = add_embeddings(rows, model)
    rows.to_json("embedded.jsonl")


if __name__ == "__main__":
    main()
