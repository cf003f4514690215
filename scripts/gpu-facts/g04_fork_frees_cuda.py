import torch, gc, common
keep = torch.arange(8.0, device="cuda")
def child():
    global keep
    keep = None
    gc.collect()
    return "freed"
print("child:", common.fork_child(child))
