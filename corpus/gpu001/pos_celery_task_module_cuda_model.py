# hazard: the Celery worker imports this module (moving the model to the GPU), then forks its default prefork pool; the task's CUDA work fails in those children.
import torch
from celery import Celery

app = Celery("rerank", broker="redis://localhost:6379/0")

scorer = torch.nn.Linear(768, 1).to("cuda")
scorer.eval()


@app.task(bind=True, max_retries=2)  # expect: GPU001
def rerank(self, embeddings):
    batch = torch.tensor(embeddings, device="cuda")
    with torch.no_grad():
        return scorer(batch).squeeze(-1).tolist()
