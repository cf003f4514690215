# silent: Horovod's rank 0 alone reloads the best snapshot it kept; no other rank loads it
import horovod.torch as hvd
import torch


def train(model, epochs, path):
    best = None
    for epoch in range(epochs):
        loss = model(torch.randn(8, 4, device="cuda")).sum()
        if hvd.rank() == 0 and (best is None or loss.item() < best):
            best = loss.item()
            torch.save(model.state_dict(), path)
    if hvd.rank() == 0:
        model.load_state_dict(torch.load(path))
    return model


def main():
    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    model = torch.nn.Linear(4, 1).cuda()
    train(model, 3, "best.pt")


if __name__ == "__main__":
    main()
