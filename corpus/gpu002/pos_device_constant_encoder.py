# hazard: DEVICE is torch.device("cuda", 0), so ENCODER lives on GPU 0 while each worker sends its batches to cuda:{gpu}.
import multiprocessing as mp

import torch
import torchvision

DEVICE = torch.device("cuda", 0)
ENCODER = torchvision.models.resnet18(weights=None).to(DEVICE).eval()  # expect: GPU002


def embed_images(gpu, paths, out_q):
    device = torch.device(f"cuda:{gpu}")
    images = torch.rand(len(paths), 3, 224, 224).to(device)
    with torch.no_grad():
        feats = ENCODER(images)
    out_q.put((gpu, feats.cpu()))


def split(items, n):
    return [items[i::n] for i in range(n)]


def main(paths):
    n_gpus = torch.cuda.device_count()
    ctx = mp.get_context("spawn")
    out_q = ctx.Queue()
    procs = [ctx.Process(target=embed_images, args=(g, part, out_q)) for g, part in enumerate(split(paths, n_gpus))]
    for p in procs:
        p.start()
    results = dict(out_q.get() for _ in procs)
    for p in procs:
        p.join()
    return results


if __name__ == "__main__":
    main([f"img_{i}.jpg" for i in range(64)])
