import multiprocessing

import torch
import torch.nn as nn
import torch.nn.functional as F


class SmallConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 5)
        self.conv2 = nn.Conv2d(64, 128, 5)
        self.fc = nn.Linear(128 * 26 * 26, 10)

    def forward(self, x):
        x = F.relu(self.conv2(F.relu(self.conv1(x))))
        return self.fc(torch.flatten(x, 1))


def infer_once(model):
    tensor = torch.rand((1, 3, 34, 34))
    print(model.forward(tensor).shape)


if __name__ == "__main__":
    ctx = multiprocessing.get_context("spawn")
    net = SmallConvNet()
    net.load_state_dict(torch.load("./model.torch", map_location=torch.device("cpu")))
    p = ctx.Process(target=infer_once, args=(net,))
    p.start()
    p.join()
