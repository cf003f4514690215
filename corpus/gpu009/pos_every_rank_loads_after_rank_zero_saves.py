# hazard: rank 0 alone writes the snapshot from its GPU, but then every rank reads it back onto cuda:0
import os

import torch
import torch.distributed as dist


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    net = torch.nn.Linear(16, 2).cuda()
    if dist.get_rank() == 0:
        torch.save(net.state_dict(), "net.pt")
    dist.barrier()
    if dist.get_rank() != 0:
        print("waiting done")
    net.load_state_dict(torch.load("net.pt"))  # expect: GPU009
    if local_rank > 0:
        net.load_state_dict(torch.load("net.pt"))  # expect: GPU009


if __name__ == "__main__":
    main()
