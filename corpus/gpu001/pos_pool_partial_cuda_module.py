# hazard: a CUDA module is bound into the pooled function with functools.partial; the forked workers run it.
import functools

import torch
import torch.multiprocessing as mp
import torchvision


def classify(model, image_batch):
    with torch.no_grad():
        logits = model(image_batch.to(next(model.parameters()).device))
    return logits.argmax(dim=1).cpu()


def load_model(name):
    net = getattr(torchvision.models, name)(weights=None)
    return net.eval().cuda()


def predict_all(batches, name="resnet18", procs=3):
    model = load_model(name)
    fn = functools.partial(classify, model)
    with mp.Pool(processes=procs) as pool:  # expect: GPU001
        preds = pool.map(fn, batches)
    return torch.cat(preds)


if __name__ == "__main__":
    data = [torch.rand(8, 3, 224, 224) for _ in range(6)]
    print(predict_all(data).shape)
