# hazard: `args` is bound only under the main guard; the spawned loader workers import the script without running the guard, so the dataset's `args.crop` raises NameError in every worker
import argparse

import torch
from torch.utils.data import DataLoader, Dataset


class Crops(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, i):
        image = torch.rand(3, 256, 256)
        return image[:, : args.crop, : args.crop]  # expect: GPU013


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--crop", type=int, default=224)
    args = parser.parse_args()
    loader = DataLoader(Crops(), batch_size=8, num_workers=2, multiprocessing_context="spawn")
    model = torch.nn.Conv2d(3, 8, 3).cuda()
    for batch in loader:
        model(batch.cuda())
