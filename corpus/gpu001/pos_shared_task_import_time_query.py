# hazard: the module asks torch for CUDA when the worker imports it (driver initialised in the worker's main process); the shared task later allocates on CUDA in a prefork child.
import torch
from celery import shared_task

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


@shared_task  # expect: GPU001
def normalise(vectors):
    t = torch.tensor(vectors, device=DEVICE)
    return torch.nn.functional.normalize(t, dim=-1).cpu().tolist()
