import ray
import torch

tensor = torch.ones(1)


@ray.remote(num_gpus=1.0)
def step():
    local = tensor.cuda() + 1
    return torch.zeros(1, device="cuda") + local


if __name__ == "__main__":
    ray.init()
    print(ray.get(step.remote()))
