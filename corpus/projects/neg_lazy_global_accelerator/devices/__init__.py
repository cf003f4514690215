from .registry import active_device

__all__ = ["active_device"]
