# silent: a module-level model on cuda:0 is fine when one process uses it and nothing picks a different device.
import argparse

import torch
import torchvision

MODEL = torchvision.models.mobilenet_v3_small(weights=None).to("cuda:0").eval()


def predict(batch):
    with torch.no_grad():
        return MODEL(batch.to("cuda:0")).softmax(dim=1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batches", type=int, default=10)
    args = ap.parse_args()
    for _ in range(args.batches):
        probs = predict(torch.rand(16, 3, 224, 224))
        print(probs.argmax(dim=1).tolist())


if __name__ == "__main__":
    main()
