# hazard: calling the project's own module runs its linear layer on the CPU, which starts the intra-op pool; the pool's workers are forked after that and call the same module.
import multiprocessing as mp

import torch


class Denoiser(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.mix = torch.nn.Linear(64, 64)

    def forward(self, signal):
        return signal - self.mix(signal)


DENOISER = Denoiser()


def clean(seed):
    torch.manual_seed(seed)
    return DENOISER(torch.rand(8, 64)).abs().mean().item()


if __name__ == "__main__":
    print("check", DENOISER(torch.rand(8, 64)).shape)
    with mp.Pool(4) as pool:  # expect: GPU014
        print(pool.map(clean, range(8)))
