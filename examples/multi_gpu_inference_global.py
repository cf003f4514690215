"""Batch image classification over a directory, one spawned process per GPU.

    python multi_gpu_inference_global.py /data/images --out predictions.csv

Bug: the classifier is a module-level global pinned to cuda:0. Spawned workers
re-import this module, so every worker builds it on GPU 0, then sends its
batches to its own GPU: "Expected all tensors to be on the same device".
"""
import argparse
import csv
import logging
import os

import torch
import torch.multiprocessing as mp
from PIL import Image
from torchvision import models, transforms

logging.basicConfig(level=logging.INFO, format="%(processName)s %(message)s")
log = logging.getLogger("infer")

DEVICE = "cuda:0"
PREPROCESS = transforms.Compose([
    transforms.Resize(256),
    transforms.CenterCrop(224),
    transforms.ToTensor(),
    transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
])
CLASSIFIER = models.efficientnet_b0(weights=None).to(DEVICE).eval()  # expect: GPU002


def list_images(root):
    exts = (".jpg", ".jpeg", ".png")
    return sorted(
        os.path.join(dirpath, name)
        for dirpath, _, names in os.walk(root)
        for name in names
        if name.lower().endswith(exts)
    )


def batched(items, size):
    for i in range(0, len(items), size):
        yield items[i:i + size]


def run_shard(gpu, shards, batch_size, results):
    torch.cuda.set_device(gpu)
    device = torch.device(f"cuda:{gpu}")
    rows = []
    for paths in batched(shards[gpu], batch_size):
        images = torch.stack([PREPROCESS(Image.open(p).convert("RGB")) for p in paths])
        with torch.no_grad():
            probs = CLASSIFIER(images.to(device)).softmax(dim=1)
        conf, label = probs.max(dim=1)
        rows.extend(zip(paths, label.tolist(), conf.tolist()))
    log.info("gpu %d classified %d images", gpu, len(rows))
    results.put(rows)


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("image_dir")
    parser.add_argument("--out", default="predictions.csv")
    parser.add_argument("--batch-size", type=int, default=64)
    return parser.parse_args()


def main():
    args = parse_args()
    paths = list_images(args.image_dir)
    n_gpus = torch.cuda.device_count()
    shards = [paths[i::n_gpus] for i in range(n_gpus)]
    log.info("%d images over %d GPUs", len(paths), n_gpus)

    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    workers = [ctx.Process(target=run_shard, args=(g, shards, args.batch_size, results)) for g in range(n_gpus)]
    for w in workers:
        w.start()
    rows = [row for _ in workers for row in results.get()]
    for w in workers:
        w.join()

    with open(args.out, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["path", "label", "confidence"])
        writer.writerows(rows)
    log.info("wrote %s", args.out)


if __name__ == "__main__":
    main()
