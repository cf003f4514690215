# silent: the model's largest weight has 16 x 8 elements, so restoring its checkpoint copies each tensor on the calling thread and the parent never starts the intra-op pool before forking.
import multiprocessing as mp

import torch


class Probe(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = torch.nn.Linear(16, 8)
        self.out = torch.nn.Linear(8, 2)

    def forward(self, x):
        return self.out(self.hidden(x).tanh())


def evaluate(model):
    print(model(torch.rand(4, 16)).argmax(-1).tolist())


if __name__ == "__main__":
    probe = Probe()
    probe.load_state_dict(torch.load("probe.pt", map_location="cpu"))
    job = mp.Process(target=evaluate, args=(probe,))
    job.start()
    job.join()
