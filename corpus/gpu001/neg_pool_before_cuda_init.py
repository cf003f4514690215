# silent: the Pool forks while the parent is still clean; each worker initialises CUDA on its own.
import multiprocessing as mp

import torch


def gpu_norms(seed):
    gen = torch.Generator(device="cuda").manual_seed(seed)
    m = torch.randn(2048, 2048, device="cuda", generator=gen)
    return torch.linalg.matrix_norm(m).item()


def main():
    seeds = list(range(32))
    with mp.Pool(processes=4) as pool:
        norms = pool.map(gpu_norms, seeds)
    print(f"mean norm over {len(norms)} draws: {sum(norms) / len(norms):.2f}")


if __name__ == "__main__":
    main()
