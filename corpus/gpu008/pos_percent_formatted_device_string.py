# hazard: an older-style device string built with % from the job-wide rank; on the second machine "cuda:8" and up name GPUs it does not have
import os

import torch


def place(model):
    rank = int(os.environ["RANK"])
    return model.to("cuda:%d" % rank)  # expect: GPU008


if __name__ == "__main__":
    print(place(torch.nn.Linear(4, 4)))
