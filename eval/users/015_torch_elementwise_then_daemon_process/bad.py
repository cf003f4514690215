import torch
import torch.multiprocessing as mp


def noisy_sum():
    total = torch.randn(300, 300) + torch.randn(300, 300)
    print(total.mean().item())


if __name__ == "__main__":
    warmup = torch.randn(300, 300) + torch.randn(300, 300)
    child = mp.Process(target=noisy_sum)
    child.daemon = True
    child.start()
    child.join()
