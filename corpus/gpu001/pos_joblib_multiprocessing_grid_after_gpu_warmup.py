# hazard: the warm-up matmul creates a CUDA context in this process; joblib's multiprocessing backend then forks a pool of workers from it, and each worker trains on the GPU in a child of an initialised parent
import torch
from joblib import Parallel, delayed


def score(lr):
    net = torch.nn.Linear(10, 1).cuda()
    opt = torch.optim.SGD(net.parameters(), lr=lr)
    x = torch.randn(128, 10, device="cuda")
    for _ in range(20):
        opt.zero_grad()
        loss = net(x).pow(2).mean()
        loss.backward()
        opt.step()
    return lr, loss.item()


def main():
    warm = torch.ones(256, 256, device="cuda")
    print("warm-up", (warm @ warm).sum().item())
    grid = [0.3, 0.1, 0.03, 0.01]
    results = Parallel(n_jobs=-1, backend="multiprocessing")(delayed(score)(lr) for lr in grid)  # expect: GPU001
    print(min(results, key=lambda r: r[1]))


if __name__ == "__main__":
    main()
