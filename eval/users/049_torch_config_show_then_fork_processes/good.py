import torch
import torch.multiprocessing as torch_mp


def square_on_gpu(x, device):
    y = x.to(device)
    return y * y


if __name__ == "__main__":
    print(torch.__config__.show())
    assert not torch.cuda.is_initialized()
    ctx = torch_mp.get_context("spawn")
    x = torch.rand(1000)
    processes = []
    for i in range(10):
        p = ctx.Process(target=square_on_gpu, args=(x, torch.device(f"cuda:{i % 2}")))
        p.start()
        processes.append(p)
    for p in processes:
        p.join()
