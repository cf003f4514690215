# silent: the project's own launch script runs this file under torchrun on one machine (no --nnodes), so the global rank is the local one
import torch
import torch.distributed as dist


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.cuda.set_device(rank)
    model = torch.nn.Linear(8, 8).cuda(rank)
    print(model)


if __name__ == "__main__":
    main()
