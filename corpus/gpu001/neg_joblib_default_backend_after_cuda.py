# silent: spawned children start clean: joblib's default backend (loky) starts each worker as a fresh interpreter, so the context this process created is not inherited by the jobs that use the GPU
import torch
from joblib import Parallel, delayed


def norm_on_gpu(seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return torch.randn(512, device="cuda", generator=g).norm().item()


if __name__ == "__main__":
    baseline = torch.randn(512, device="cuda").norm().item()
    norms = Parallel(n_jobs=4)(delayed(norm_on_gpu)(s) for s in range(8))
    print(baseline, norms)
