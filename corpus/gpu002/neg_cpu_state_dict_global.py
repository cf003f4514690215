# silent: the module-level checkpoint is loaded with map_location="cpu"; workers build their model and load it onto their own GPU.
import torch
import torch.multiprocessing as mp
import torchvision

WEIGHTS = torch.load("resnet34_finetuned.pt", map_location="cpu")


def evaluate(rank, n_batches):
    torch.cuda.set_device(rank)
    model = torchvision.models.resnet34(num_classes=20)
    model.load_state_dict(WEIGHTS)
    model = model.to(f"cuda:{rank}").eval()
    correct = 0
    for _ in range(n_batches):
        x = torch.rand(32, 3, 224, 224, device=f"cuda:{rank}")
        with torch.no_grad():
            correct += int((model(x).argmax(1) == 0).sum())
    print(rank, correct)


if __name__ == "__main__":
    mp.spawn(evaluate, args=(5,), nprocs=torch.cuda.device_count())
