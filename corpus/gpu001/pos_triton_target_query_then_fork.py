# hazard: asking Triton's active driver for the current target initialises CUDA in the parent (seen on triton 3.6); the forked child's CUDA use then fails.
import multiprocessing as mp

import torch
import triton


def run_kernel(n):
    x = torch.rand(n, device="cuda")
    print((x * 2).sum().item())


def main():
    target = triton.runtime.driver.active.get_current_target()
    print("compiling for", target)
    proc = mp.Process(target=run_kernel, args=(1 << 20,))
    proc.start()  # expect: GPU001
    proc.join()


if __name__ == "__main__":
    main()
