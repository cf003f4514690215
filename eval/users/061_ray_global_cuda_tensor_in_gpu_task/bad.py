import ray
import torch

tensor = torch.ones(1).cuda()


@ray.remote(num_gpus=1.0)
def step():
    global tensor
    tensor += 1
    return torch.zeros(1).cuda() + tensor


if __name__ == "__main__":
    ray.init()
    print(ray.get(step.remote()))
