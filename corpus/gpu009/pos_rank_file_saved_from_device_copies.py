# hazard: the weights are saved as CUDA tensors from rank 0's GPU, so every rank reads them back onto cuda:0
import os
import sys

import torch
import torch.distributed as dist


def main(phase):
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    model = torch.nn.Linear(8, 8).cuda()
    state = {name: p.detach().clone() for name, p in model.named_parameters()}
    if phase == "write":
        torch.save(state, "weights.pt")
    else:
        for name, saved in torch.load("weights.pt").items():  # expect: GPU009
            assert torch.equal(saved, state[name])


if __name__ == "__main__":
    main(sys.argv[1])
