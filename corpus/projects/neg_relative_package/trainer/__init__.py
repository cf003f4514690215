from .data import make_loader
