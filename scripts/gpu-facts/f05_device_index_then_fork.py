import torch, common
d = torch.device(0)
print("torch", torch.__version__, "device", d, "initialized", torch.cuda.is_initialized())
print("child:", common.fork_child(lambda: torch.zeros(1, device="cuda").sum().item()))
