# hazard: the project's launch script runs this file on two machines, where the second one has no GPU numbered 8 to 15
import torch
import torch.distributed as dist


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.cuda.set_device(rank)  # expect: GPU008
    model = torch.nn.Linear(8, 8).cuda(rank)  # expect: GPU008
    print(model)


if __name__ == "__main__":
    main()
