import multiprocessing as mp
import os

import torch
import transformers  # noqa: F401


def serve(gpu, requests):
    os.environ["CUDA_VISIBLE_DEVICES"] = str(gpu)
    model = torch.nn.Linear(200, 300)
    model = model.to("cuda")
    while (batch := requests.get()) is not None:
        print(gpu, model(batch.to("cuda")).shape)


if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    queues = [ctx.Queue() for _ in range(2)]
    workers = [ctx.Process(target=serve, args=(gpu, q)) for gpu, q in enumerate(queues)]
    for w in workers:
        w.start()
    for q in queues:
        q.put(torch.randn(8, 200))
        q.put(None)
    for w in workers:
        w.join()
