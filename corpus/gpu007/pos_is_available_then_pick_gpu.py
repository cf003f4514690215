# hazard: is_available() already ran cuInit, so choosing the GPU through the environment afterwards does nothing: the model lands on the first GPU
import argparse
import os

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--gpu", default="1")
args = parser.parse_args()

if torch.cuda.is_available():
    os.environ["CUDA_VISIBLE_DEVICES"] = args.gpu  # expect: GPU007
    model = torch.nn.Linear(32, 2).cuda()
    print(model(torch.randn(4, 32, device="cuda")))
