# hazard: on the sharded path the worker puts its model on its own GPU and its batch on the current device (GPU 0 in every worker); the other path stays on the CPU
import torch
import torch.multiprocessing as mp


def run(rank, sharded):
    net = torch.nn.Linear(4, 2)
    if sharded:
        net = net.to(f"cuda:{rank}")
        batch = torch.randn(8, 4).cuda()  # expect: GPU010
    else:
        batch = torch.randn(8, 4)
    print(net(batch))


if __name__ == "__main__":
    mp.spawn(run, args=(True,), nprocs=2)
