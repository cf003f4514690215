import torch, common
try:
    t = torch.cuda.FloatTensor(2)
    print("typed ctor made", t.device, "initialized", torch.cuda.is_initialized())
except Exception as e:
    print("typed ctor raised", type(e).__name__, str(e)[:150])
print("child:", common.fork_child(lambda: torch.zeros(1, device="cuda").sum().item()))
