# hazard: the rank set its GPU, but a logging thread allocates with device="cuda", which in that thread is GPU 0
import os
import threading

import torch


def report_norms(params, every):
    for step in range(every):
        buffer = torch.empty(len(params), device="cuda")  # expect: GPU010
        for i, p in enumerate(params):
            buffer[i] = p.detach().norm()
        print(step, buffer.tolist())


def train():
    gpu = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(gpu)
    model = torch.nn.Linear(32, 2).cuda()
    logger = threading.Thread(target=report_norms, args=(list(model.parameters()), 100))
    logger.start()
    model(torch.randn(4, 32).cuda()).sum().backward()
    logger.join()


if __name__ == "__main__":
    train()
