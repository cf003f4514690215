# hazard: the registry singleton is built on first use and then updated with setattr by the parent; a spawned worker builds its own singleton from the defaults, without the parent's updates
import multiprocessing as mp

import torch


class Registry:
    _shared = None

    def __init__(self):
        self.width = 8

    @classmethod
    def get(cls):
        if cls._shared is None:
            cls._shared = cls()
        return cls._shared


def set_fields(target, fields):
    for name, value in fields.items():
        setattr(target, name, value)


def make_buffer(i):
    reg = Registry.get()
    return torch.zeros(reg.width).numel()  # expect: GPU013


if __name__ == "__main__":
    set_fields(Registry.get(), {"width": 64})
    with mp.get_context("spawn").Pool(2) as pool:
        print(pool.map(make_buffer, range(2)))
