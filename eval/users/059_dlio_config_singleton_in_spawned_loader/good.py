from functools import partial

import torch
from torch.utils.data import DataLoader, Dataset


class ConfigArguments:
    __instance = None

    def __init__(self):
        self.data_folder = "data/"
        self.record_length = 65536
        self.reader = "npz"

    @staticmethod
    def get_instance():
        if ConfigArguments.__instance is None:
            ConfigArguments.__instance = ConfigArguments()
        return ConfigArguments.__instance


def load_config(args, overrides):
    for key, value in overrides.items():
        setattr(args, key, value)


class SampleFiles(Dataset):
    def __init__(self, record_length):
        self.record_length = record_length

    def __len__(self):
        return 1024

    def __getitem__(self, idx):
        return torch.zeros(self.record_length, dtype=torch.uint8)


def worker_init(worker_id, overrides):
    args = ConfigArguments.get_instance()
    load_config(args, overrides)
    print(worker_id, args.data_folder, args.reader)


if __name__ == "__main__":
    overrides = {"data_folder": "/lus/run42", "reader": "hdf5", "record_length": 1024}
    load_config(ConfigArguments.get_instance(), overrides)
    loader = DataLoader(SampleFiles(overrides["record_length"]), batch_size=8, num_workers=4,
                        multiprocessing_context="spawn", worker_init_fn=partial(worker_init, overrides=overrides))
    for batch in loader:
        pass
