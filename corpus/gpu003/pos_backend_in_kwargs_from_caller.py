# hazard: the caller passes backend="nccl" through **kwargs; the helper's barrier then runs on GPU 0 in every rank, which never binds its device
import torch.distributed as dist


def init_distributed(**kwargs):
    dist.init_process_group(**kwargs)  # expect: GPU003(error)
    dist.barrier()


def main():
    init_distributed(backend="nccl", init_method="env://")


if __name__ == "__main__":
    main()
