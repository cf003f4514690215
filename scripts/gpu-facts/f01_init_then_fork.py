import torch, common
torch.cuda.init()
print("parent initialised; child:", common.fork_child(lambda: torch.zeros(1, device="cuda").sum().item()))
