# silent: the distributed branch places the model on the current device and the single-process branch on a configured GPU; no path does both
import os

import torch


def fit(net, gpus, distributed):
    if distributed:
        model = torch.nn.parallel.DistributedDataParallel(
            net.cuda(), device_ids=[torch.cuda.current_device()]
        )
    else:
        model = torch.nn.DataParallel(net.cuda(gpus[0]), device_ids=gpus)
    return model


def main():
    rank = int(os.environ["LOCAL_RANK"])
    fit(torch.nn.Linear(4, 2), [rank], rank > 0)


if __name__ == "__main__":
    main()
