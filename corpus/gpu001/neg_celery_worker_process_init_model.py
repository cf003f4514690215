# silent: the model is loaded by a worker_process_init handler, which runs in each prefork child after the fork; the worker's main process never touches CUDA.
import torch
from celery import Celery
from celery.signals import worker_process_init

app = Celery("rerank", broker="redis://localhost:6379/0")
scorer = None


@worker_process_init.connect
def load_scorer(**_):
    global scorer
    scorer = torch.nn.Linear(768, 1).to("cuda").eval()


@app.task
def rerank(embeddings):
    with torch.no_grad():
        return scorer(torch.tensor(embeddings, device="cuda")).squeeze(-1).tolist()
