# silent: torch.accelerator.set_device_index(gpu) binds the device before init_process_group (accelerator-generic set_device).
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel


def main_worker(gpu, world_size, dist_url):
    torch.accelerator.set_device_index(gpu)
    dist.init_process_group(backend="nccl", init_method=dist_url, world_size=world_size, rank=gpu)
    model = torch.nn.Conv1d(16, 16, 3).cuda(gpu)
    model = DistributedDataParallel(model, device_ids=[gpu])
    x = torch.randn(8, 16, 100).cuda(gpu, non_blocking=True)
    model(x).mean().backward()
    dist.destroy_process_group()


if __name__ == "__main__":
    ngpus = torch.cuda.device_count()
    mp.spawn(main_worker, nprocs=ngpus, args=(ngpus, "tcp://127.0.0.1:29511"))
