import torch


def make_communicator(device):
    torch.cuda.set_device(device)
    return {"device": device}
