"""Picks the device backend once, like deepspeed's get_accelerator()."""
import os

_chosen = None


def current_accelerator():
    global _chosen
    if _chosen is not None:
        return _chosen
    name = os.environ.get("ACCELERATOR", "cuda")
    if name == "cuda":
        from .cuda_backend import CudaBackend

        _chosen = CudaBackend()
    else:
        from .cpu_backend import CpuBackend

        _chosen = CpuBackend()
    return _chosen
