from functools import partial

import torch
from torch.utils.data import DataLoader, Dataset


class RunConfig:
    __instance = None

    def __init__(self):
        self.data_folder = "data/"
        self.record_length = 65536
        self.reader = "npz"

    @staticmethod
    def get_instance():
        if RunConfig.__instance is None:
            RunConfig.__instance = RunConfig()
        return RunConfig.__instance


def apply_overrides(args, overrides):
    for key, value in overrides.items():
        setattr(args, key, value)


class SampleFiles(Dataset):
    def __init__(self, record_length):
        self.record_length = record_length

    def __len__(self):
        return 1024

    def __getitem__(self, idx):
        return torch.zeros(self.record_length, dtype=torch.uint8)


def on_worker_start(worker_id, overrides):
    args = RunConfig.get_instance()
    apply_overrides(args, overrides)
    print(worker_id, args.data_folder, args.reader)


if __name__ == "__main__":
    overrides = {"data_folder": "/lus/run42", "reader": "hdf5", "record_length": 1024}
    apply_overrides(RunConfig.get_instance(), overrides)
    loader = DataLoader(SampleFiles(overrides["record_length"]), batch_size=8, num_workers=4,
                        multiprocessing_context="spawn", worker_init_fn=partial(on_worker_start, overrides=overrides))
    for batch in loader:
        pass
