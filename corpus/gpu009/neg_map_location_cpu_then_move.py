# silent: each spawned worker maps the weights to the CPU and moves the model to its own GPU
import torch
import torch.multiprocessing as mp


def evaluate(rank):
    torch.cuda.set_device(rank)
    net = torch.nn.Linear(16, 2)
    net.load_state_dict(torch.load("weights.pt", "cpu"))
    net.cuda(rank)


if __name__ == "__main__":
    mp.spawn(evaluate, nprocs=torch.cuda.device_count())
