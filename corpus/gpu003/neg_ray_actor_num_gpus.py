# silent: a Ray actor with num_gpus=1 sees only its own GPU (Ray narrows CUDA_VISIBLE_DEVICES), so "cuda" is the right device.
import ray
import torch
import torch.distributed as dist


@ray.remote(num_gpus=1)
class TrainWorker:
    def __init__(self, rank, world_size, master):
        self.rank = rank
        self.world_size = world_size
        self.master = master

    def setup(self):
        dist.init_process_group("nccl", init_method=self.master, rank=self.rank, world_size=self.world_size)
        self.model = torch.nn.Linear(128, 128).cuda()
        dist.barrier()

    def step(self):
        g = torch.randn(128, 128, device="cuda")
        dist.all_reduce(g)
        return g.mean().item()


if __name__ == "__main__":
    ray.init()
    n = 4
    workers = [TrainWorker.remote(r, n, "tcp://10.0.0.1:29700") for r in range(n)]
    ray.get([w.setup.remote() for w in workers])
    print(ray.get([w.step.remote() for w in workers]))
