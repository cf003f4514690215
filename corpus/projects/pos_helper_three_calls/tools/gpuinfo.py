import torch


def device_name():
    return torch.cuda.get_device_properties(0).name
