# hazard: the parent already created a CUDA tensor when Pool forks its workers, and the mapped function uses CUDA.
from multiprocessing import Pool

import numpy as np
import torch


def gpu_histogram(path):
    values = np.load(path)
    t = torch.from_numpy(values).cuda()
    return torch.histc(t, bins=32).cpu().numpy()


def warm_up():
    # touch the GPU once so the first timed step is not slowed by context creation
    torch.zeros(1).cuda()


def main(paths):
    warm_up()
    with Pool(4) as pool:  # expect: GPU001
        hists = pool.map(gpu_histogram, paths)
    total = np.sum(hists, axis=0)
    print(total)


if __name__ == "__main__":
    main([f"chunk_{i:03d}.npy" for i in range(16)])
