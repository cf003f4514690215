import os

import torch

import horovod.torch as hvd


def train(path):
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    model = torch.nn.Linear(4, 4).cuda()
    if hvd.rank() == 0:
        model.load_state_dict(torch.load(path))
    return model
