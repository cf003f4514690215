# hazard: a torchrun rank without a process group moves its model to LOCAL_RANK but builds labels with a typed CUDA constructor on GPU 0
import os

import torch


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    model = torch.nn.Linear(10, 3).cuda(local_rank)
    labels = torch.cuda.LongTensor([0, 1, 2])  # expect: GPU010
    out = model(torch.rand(3, 10, device=f"cuda:{local_rank}"))
    print(torch.nn.functional.cross_entropy(out, labels))


if __name__ == "__main__":
    main()
