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
    def __len__(self):
        return 1024

    def __getitem__(self, idx):
        args = ConfigArguments.get_instance()
        return torch.zeros(args.record_length, dtype=torch.uint8)


def worker_init(worker_id):
    args = ConfigArguments.get_instance()
    print(worker_id, args.data_folder, args.reader)


if __name__ == "__main__":
    load_config(ConfigArguments.get_instance(), {"data_folder": "/lus/run42", "reader": "hdf5", "record_length": 1024})
    loader = DataLoader(SampleFiles(), batch_size=8, num_workers=4, multiprocessing_context="spawn", worker_init_fn=worker_init)
    for batch in loader:
        pass
