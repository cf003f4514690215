"""torchrun entry point: Engine binds LOCAL_RANK's device before the backend creates the group."""
import torch

from engine.runtime import Engine

if __name__ == "__main__":
    engine = Engine(torch.nn.Linear(4, 4))
    engine.step(torch.ones(4, device="cuda"))
