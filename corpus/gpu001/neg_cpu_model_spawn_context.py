# silent: like sentence-transformers' multi-process pool: the model goes back to the CPU and workers come from a spawn context.
import torch
import torch.multiprocessing as mp
from torch import nn


class TextEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.EmbeddingBag(50_000, 384)

    def forward(self, ids):
        return nn.functional.normalize(self.emb(ids), dim=-1)


def encode_worker(device, model, in_q, out_q):
    model = model.to(device)
    while True:
        item = in_q.get()
        if item is None:
            break
        idx, ids = item
        with torch.no_grad():
            out_q.put((idx, model(ids.to(device)).cpu()))


def start_pool(model):
    devices = [f"cuda:{i}" for i in range(torch.cuda.device_count())] if torch.cuda.is_available() else ["cpu"]
    model.to("cpu")
    model.share_memory()
    ctx = mp.get_context("spawn")
    in_q, out_q = ctx.Queue(), ctx.Queue()
    procs = []
    for dev in devices:
        p = ctx.Process(target=encode_worker, args=(dev, model, in_q, out_q), daemon=True)
        p.start()
        procs.append(p)
    return procs, in_q, out_q


def main():
    encoder = TextEncoder().cuda()
    procs, in_q, out_q = start_pool(encoder)
    for i in range(10):
        in_q.put((i, torch.randint(0, 50_000, (32, 16))))
    results = [out_q.get() for _ in range(10)]
    for _ in procs:
        in_q.put(None)
    print(len(results))


if __name__ == "__main__":
    main()
