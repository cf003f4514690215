import triton, common
from triton.runtime import driver
try:
    t = driver.active.get_current_target()
    print("triton", triton.__version__, "target", t)
except Exception as e:
    print("triton query raised", e)
import torch
print("torch initialized", torch.cuda.is_initialized())
print("child:", common.fork_child(lambda: torch.zeros(1, device="cuda").sum().item()))
