# hazard: the parent changes the module-level CONFIG dict in place before torch.multiprocessing.spawn; each spawned rank imports the module afresh and trains with the default learning rate
import torch
import torch.multiprocessing as mp

CONFIG = {"lr": 0.1, "epochs": 1}


def train(rank):
    torch.cuda.set_device(rank)
    model = torch.nn.Linear(8, 8).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=CONFIG["lr"])  # expect: GPU013
    opt.zero_grad()


if __name__ == "__main__":
    CONFIG["lr"] = 0.01
    mp.spawn(train, nprocs=2)
