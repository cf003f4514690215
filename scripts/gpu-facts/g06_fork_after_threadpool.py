import torch, os, common
a = torch.randn(512, 512)
for _ in range(5):
    a = a @ a.T / 512
print("threads", torch.get_num_threads())
print("child:", common.fork_child(lambda: float((torch.randn(512, 512) @ torch.randn(512, 512)).sum() != 0)))
