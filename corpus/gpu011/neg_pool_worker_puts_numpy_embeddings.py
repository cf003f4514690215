# silent: each per-GPU process puts what `encode` returns, NumPy arrays on the host, not CUDA tensors
import torch
import torch.multiprocessing as mp
from sentence_transformers import SentenceTransformer


def embed(device, model, texts, results):
    model = model.to(device)
    results.put(model.encode(texts, device=device))


if __name__ == "__main__":
    model = SentenceTransformer("all-MiniLM-L6-v2")
    model.to("cpu")
    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    procs = [
        ctx.Process(target=embed, args=(f"cuda:{i}", model, ["a", "b"], results))
        for i in range(torch.cuda.device_count())
    ]
    for p in procs:
        p.start()
    print([results.get() for _ in procs])
