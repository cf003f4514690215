# hazard: inputs follow the model's device, which the worker chose (`cuda:{rank}`), but a mask is made on the current device: GPU 0 in every worker
import torch
import torch.multiprocessing as mp


def infer(rank):
    net = torch.nn.Linear(4, 2).to(f"cuda:{rank}")
    batch = torch.randn(8, 4).to(net.weight.device)
    mask = torch.ones(8, 2).cuda()  # expect: GPU010
    print(net(batch) * mask)


if __name__ == "__main__":
    mp.spawn(infer, nprocs=2)
