from .runtime import device, run
