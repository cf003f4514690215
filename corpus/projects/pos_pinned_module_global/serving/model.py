import torch

net = torch.nn.Linear(8, 8).to("cuda:0")  # expect: GPU002
