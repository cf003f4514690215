# hazard: torch.__config__.show() queries CUDA through its hooks in the parent; the forked children fail on their first CUDA tensor.
import multiprocessing as mp

import torch


def square_on(device, values):
    x = torch.tensor(values).to(device)
    print((x * x).sum().item())


def main():
    print(torch.__config__.show())
    procs = [
        mp.Process(target=square_on, args=(torch.device("cuda", i % 2), [1.0, 2.0]))
        for i in range(4)
    ]
    for p in procs:
        p.start()  # expect: GPU001
    for p in procs:
        p.join()


if __name__ == "__main__":
    main()
