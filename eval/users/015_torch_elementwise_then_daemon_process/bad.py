import torch
import torch.multiprocessing as mp


def map_fn():
    t1 = torch.randn(300, 300) + torch.randn(300, 300)
    print(t1.mean().item())


if __name__ == "__main__":
    t0 = torch.randn(300, 300) + torch.randn(300, 300)
    w = mp.Process(target=map_fn)
    w.daemon = True
    w.start()
    w.join()
