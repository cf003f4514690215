import torch, gc, common
keep = torch.arange(8.0).pin_memory()
def child():
    global keep
    keep = None
    gc.collect()
    return "freed"
print("child:", common.fork_child(child))
