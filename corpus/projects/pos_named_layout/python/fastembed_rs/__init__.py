from .runtime import DEVICE, session
