# silent: the global model starts as None and is filled in worker_process_init, which runs inside each prefork child (REAL-BUGS N09).
import torch
from celery import Celery
from celery.signals import worker_process_init

app = Celery("inference", broker="redis://localhost:6379/0", backend="redis://localhost:6379/1")

model = None
device = None


@worker_process_init.connect
def load_model_in_child(**kwargs):
    global model, device
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = torch.jit.load("sentiment.ts", map_location=device).eval()


@app.task
def predict(token_ids):
    x = torch.tensor([token_ids], device=device)
    with torch.no_grad():
        probs = model(x).softmax(dim=-1)
    return probs.squeeze(0).tolist()
