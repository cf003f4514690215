# hazard: a cuda:0 global model is inherited by forked per-GPU workers: the fork itself breaks CUDA, and the model is pinned to GPU 0.
import multiprocessing as mp

import torch

GENERATOR = torch.nn.GRU(input_size=64, hidden_size=128, num_layers=2).to("cuda:0")  # expect: GPU002


def sample(gpu, steps):
    torch.cuda.set_device(gpu)
    h = torch.zeros(2, 1, 128, device=f"cuda:{gpu}")
    x = torch.randn(steps, 1, 64, device=f"cuda:{gpu}")
    with torch.no_grad():
        out, _ = GENERATOR(x, h)
    print(gpu, out.norm().item())


def main():
    procs = []
    for gpu in range(torch.cuda.device_count()):
        proc = mp.Process(target=sample, args=(gpu, 100))
        proc.start()  # expect: GPU001
        procs.append(proc)
    for proc in procs:
        proc.join()


if __name__ == "__main__":
    main()
