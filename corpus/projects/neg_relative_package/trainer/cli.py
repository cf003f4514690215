"""`python -m trainer.cli`: the model goes to CUDA, then the loader forks workers whose dataset uses CUDA."""
from . import data
from .model import build


def train():
    model = build()
    loader = data.make_loader(workers=4)
    for batch in loader:
        model(batch.cuda(non_blocking=True)).sum().backward()


if __name__ == "__main__":
    train()
