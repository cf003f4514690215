from .select import current_accelerator
