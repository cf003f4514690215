# hazard: every spawned worker picks its own GPU but loads the weights back onto the saving GPU
import torch
import torch.multiprocessing as mp


def evaluate(rank, world_size):
    torch.cuda.set_device(rank)
    weights = torch.load("weights.pt", map_location=None)  # expect: GPU009
    net = torch.nn.Linear(16, 2)
    net.load_state_dict(weights)
    net.to(rank)
    print(net(torch.ones(1, 16, device=rank)))


if __name__ == "__main__":
    n = torch.cuda.device_count()
    mp.spawn(evaluate, args=(n,), nprocs=n)
