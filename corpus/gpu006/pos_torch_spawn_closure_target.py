# hazard: torch.multiprocessing.spawn always uses spawn, which pickles its function; a closure made in launch() cannot be pickled
import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def launch(world_size, lr):
    def worker(rank):
        torch.cuda.set_device(rank)
        dist.init_process_group("nccl", rank=rank, world_size=world_size)
        model = torch.nn.Linear(4, 4).cuda()
        torch.optim.SGD(model.parameters(), lr=lr)

    mp.spawn(worker, nprocs=world_size)  # expect: GPU006


if __name__ == "__main__":
    launch(2, 0.1)
