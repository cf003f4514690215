"""A device abstraction chosen on first use from a table of backends, kept in a global."""
import torch

_ACTIVE = None


class GpuBackend:
    def set_device(self, index=None):
        torch.cuda.set_device(0 if index is None else index)

    def group_backend(self):
        return "nccl"


class HpuBackend:
    def set_device(self, index=None):
        raise RuntimeError("no HPU here")

    def group_backend(self):
        return "hccl"


_BACKENDS = {"cuda": GpuBackend, "hpu": HpuBackend}


def _pick():
    global _ACTIVE
    for _, backend in _BACKENDS.items():
        try:
            _ACTIVE = backend()
            return
        except RuntimeError:
            continue


def active_device():
    if _ACTIVE is None:
        _pick()
    return _ACTIVE
