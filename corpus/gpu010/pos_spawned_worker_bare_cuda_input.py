# hazard: the model goes to the worker's GPU but the batch to the current device, GPU 0 in every worker
import torch
import torch.multiprocessing as mp


def infer(rank):
    net = torch.nn.Linear(4, 2).to(f"cuda:{rank}")
    batch = torch.randn(8, 4).cuda()  # expect: GPU010
    print(net(batch))


if __name__ == "__main__":
    mp.spawn(infer, nprocs=torch.cuda.device_count())
