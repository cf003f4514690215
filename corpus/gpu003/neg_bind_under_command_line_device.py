# silent: the device type comes from the command line, so the branch that binds the device may run; nothing says every rank stays on GPU 0.
import os
import sys

import torch
import torch.distributed as dist


def main():
    kind = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    if kind == "cuda":
        torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    dist.init_process_group("nccl")
    payload = [torch.arange(4).tolist()]
    dist.broadcast_object_list(payload, src=0)
    print(payload)


if __name__ == "__main__":
    main()
