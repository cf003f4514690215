# hazard: one process per GPU, each loading the TorchScript model onto the device it was saved from
import multiprocessing as mp

import torch


def serve(gpu):
    device = torch.device("cuda", gpu)
    model = torch.jit.load("model.ts")  # expect: GPU009
    model.to(device)
    print(model(torch.rand(2, 4, device=device)))


if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=serve, args=(g,)) for g in range(torch.cuda.device_count())]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
