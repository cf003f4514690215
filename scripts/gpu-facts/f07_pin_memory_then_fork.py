import torch, common
t = torch.zeros(4).pin_memory()
print("pinned", t.is_pinned(), "initialized", torch.cuda.is_initialized())
print("child (cpu work only):", common.fork_child(lambda: float(torch.ones(3).sum())))
print("child (cuda):", common.fork_child(lambda: torch.zeros(1, device="cuda").sum().item()))
