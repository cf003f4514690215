import torch, common
print("device_count", torch.cuda.device_count(), "initialized", torch.cuda.is_initialized())
print("child:", common.fork_child(lambda: torch.zeros(1, device="cuda").sum().item()))
