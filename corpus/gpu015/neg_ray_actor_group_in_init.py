# silent: Ray gives the actor one GPU before its `__init__` runs: the group is created on that GPU, and binding index 0 afterwards changes nothing
import ray
import torch
import torch.distributed as dist


@ray.remote(num_gpus=1)
class Trainer:
    def __init__(self, rank, world):
        dist.init_process_group(backend="nccl", rank=rank, world_size=world)
        torch.cuda.set_device(0)
        self.weights = torch.zeros(16, device="cuda")

    def step(self):
        dist.all_reduce(self.weights)
        return self.weights.sum().item()


def main():
    trainers = [Trainer.remote(r, 2) for r in range(2)]
    print(ray.get([t.step.remote() for t in trainers]))


if __name__ == "__main__":
    main()
