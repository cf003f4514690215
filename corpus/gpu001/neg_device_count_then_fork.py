# silent: torch.cuda.device_count() counts through NVML on torch >= 1.13 and leaves the driver untouched, so forking is still safe.
import torch
import torch.multiprocessing as mp


def bench(idx, size):
    torch.cuda.set_device(idx)
    a = torch.randn(size, size, device="cuda")
    torch.cuda.synchronize()
    print(idx, (a @ a).trace().item())


if __name__ == "__main__":
    n = torch.cuda.device_count()
    mp.start_processes(bench, args=(4096,), nprocs=n, start_method="fork")
