# silent: Ray tasks run in separate worker processes started by Ray, not forked from this CUDA-initialised driver.
import ray
import torch


@ray.remote(num_gpus=1)
def gpu_sum(n):
    t = torch.ones(n, device="cuda")
    return t.sum().item()


def main():
    ray.init()
    local = torch.ones(10, device="cuda").sum().item()
    totals = ray.get([gpu_sum.remote(1_000 * k) for k in range(1, 5)])
    print(local, totals)


if __name__ == "__main__":
    main()
