# silent: `mesh.device_type` is a kind of device ("cuda"), not a GPU the rank picks; the rank's only placements are on the current device
import os

import torch


def load_shard(mesh, state, name):
    local = state[name].to(mesh.device_type)
    dev = mesh.device_type
    flag = torch.zeros(1, device=dev)
    buffer = torch.empty_like(local, device=torch.device("cuda"))
    return buffer.copy_(local), flag


def main():
    rank = int(os.environ["LOCAL_RANK"])
    print(rank, load_shard(None, {}, "w"))


if __name__ == "__main__":
    main()
