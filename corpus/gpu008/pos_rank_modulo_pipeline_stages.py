# hazard: the rank modulo the pipeline depth is a stage number, not a GPU of this node: with 16 stages over two 8-GPU machines, stages 8 to 15 ask for GPUs that do not exist
import os

import torch
import torch.distributed as dist


def place_stage(layers, pp_size):
    stage = int(os.environ["RANK"]) % pp_size
    torch.cuda.set_device(stage)  # expect: GPU008
    dist.init_process_group("nccl")
    return layers[stage].cuda()


if __name__ == "__main__":
    blocks = [torch.nn.Linear(64, 64) for _ in range(16)]
    print(place_stage(blocks, pp_size=16))
