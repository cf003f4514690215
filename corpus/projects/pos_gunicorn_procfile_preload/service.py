"""A scoring API that asks torch for CUDA at import (initialising the driver); the Procfile
starts gunicorn with --preload, so the workers that score requests are forked after it."""
import torch
from fastapi import FastAPI

api = FastAPI()
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


@api.post("/score")  # expect: GPU001
def score(values: list[float]):
    x = torch.tensor(values, device=DEVICE)
    return {"score": float(x.softmax(-1).max())}
