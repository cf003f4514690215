import torch, common
print("is_available", torch.cuda.is_available(), "initialized", torch.cuda.is_initialized())
print("child:", common.fork_child(lambda: torch.zeros(1, device="cuda").sum().item()))
