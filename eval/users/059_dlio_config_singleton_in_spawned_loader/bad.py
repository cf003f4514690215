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
    def __len__(self):
        return 1024

    def __getitem__(self, idx):
        args = RunConfig.get_instance()
        return torch.zeros(args.record_length, dtype=torch.uint8)


def on_worker_start(worker_id):
    args = RunConfig.get_instance()
    print(worker_id, args.data_folder, args.reader)


if __name__ == "__main__":
    apply_overrides(RunConfig.get_instance(), {"data_folder": "/lus/run42", "reader": "hdf5", "record_length": 1024})
    loader = DataLoader(SampleFiles(), batch_size=8, num_workers=4, multiprocessing_context="spawn", worker_init_fn=on_worker_start)
    for batch in loader:
        pass
