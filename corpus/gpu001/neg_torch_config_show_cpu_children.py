# silent: the parent prints the build configuration, but the forked children compute on the CPU and never touch CUDA.
import multiprocessing as mp

import torch


def square_sum(values):
    x = torch.tensor(values)
    return float((x * x).sum())


def main():
    print(torch.__config__.show())
    with mp.Pool(2) as pool:
        print(pool.map(square_sum, [[1.0, 2.0], [3.0, 4.0]]))


if __name__ == "__main__":
    main()
