# silent: the parent changes the module's settings object and then hands that object to each task; pickling carries the changed fields to the spawned worker
import multiprocessing as mp

import torch


class Settings:
    def __init__(self):
        self.gain = 1.0


SETTINGS = Settings()


def amplify(job):
    settings, values = job
    return (torch.tensor(values) * settings.gain).tolist()


if __name__ == "__main__":
    SETTINGS.gain = 3.0
    with mp.get_context("spawn").Pool(2) as pool:
        print(pool.map(amplify, [(SETTINGS, [1.0, 2.0]), (SETTINGS, [4.0])]))
