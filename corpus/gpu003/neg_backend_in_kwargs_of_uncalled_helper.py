# silent: a deprecated helper nobody calls hands its **kwargs to init_process_group; the backend may be gloo, so it is not known to be NCCL (HAZARDS.md GPU003, backend from **kwargs)
import warnings

import torch.distributed as dist


def init_distributed(**kwargs):
    warnings.warn("init_distributed is deprecated; use launch()", DeprecationWarning, stacklevel=2)
    dist.init_process_group(**kwargs)
    dist.barrier()
