# hazard: the lazily cached _model is always placed on "cuda:0", even when the calling worker has bound another GPU.
import torch
import torch.multiprocessing as mp
from transformers import AutoModelForSequenceClassification

_model = None


def get_model():
    global _model
    if _model is None:
        _model = AutoModelForSequenceClassification.from_pretrained("distilbert-base-uncased").to("cuda:0")  # expect: GPU002
        _model.eval()
    return _model


def classify_worker(rank, token_batches):
    torch.cuda.set_device(rank)
    model = get_model()
    for ids in token_batches[rank]:
        with torch.no_grad():
            logits = model(input_ids=ids.to(f"cuda:{rank}")).logits
        print(rank, logits.argmax(-1).tolist())


if __name__ == "__main__":
    n = torch.cuda.device_count()
    batches = [[torch.randint(0, 30000, (4, 32))] for _ in range(n)]
    mp.spawn(classify_worker, args=(batches,), nprocs=n)
