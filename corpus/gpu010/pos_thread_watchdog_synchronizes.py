# hazard: each rank binds its GPU, then a watchdog thread calls synchronize() on the thread's current device, which is GPU 0 in every rank
import os
import threading
import time

import torch
import torch.distributed as dist


def watchdog(period):
    while True:
        torch.cuda.synchronize()  # expect: GPU010
        time.sleep(period)


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl")
    threading.Thread(target=watchdog, args=(30.0,), daemon=True).start()
    net = torch.nn.Linear(16, 16).cuda()
    out = net(torch.randn(4, 16, device="cuda"))
    dist.all_reduce(out)


if __name__ == "__main__":
    main()
