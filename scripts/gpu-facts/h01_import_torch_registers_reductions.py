import sys
import torch
from multiprocessing.reduction import ForkingPickler
names = [getattr(k, "__name__", "") for k in ForkingPickler._extra_reducers]
print("torch", torch.__version__, "| torch.multiprocessing imported:", "torch.multiprocessing" in sys.modules,
      "| ForkingPickler reduces torch.Tensor:", "Tensor" in names)
