"""The same scoring API without --preload: gunicorn forks its workers first, and each imports
the module (and initialises CUDA) itself."""
import torch
from fastapi import FastAPI

api = FastAPI()
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


@api.post("/score")
def score(values: list[float]):
    x = torch.tensor(values, device=DEVICE)
    return {"score": float(x.softmax(-1).max())}
