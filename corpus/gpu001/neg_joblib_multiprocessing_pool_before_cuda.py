# silent: fork before init: the multiprocessing backend's workers are forked and finish before this process first uses the GPU; they only count tokens on the CPU
import torch
from joblib import Parallel, delayed


def count_tokens(line):
    return len(line.split())


if __name__ == "__main__":
    lines = ["a b c", "d e", "f g h i"] * 100
    counts = Parallel(n_jobs=3, backend="multiprocessing")(delayed(count_tokens)(l) for l in lines)
    lengths = torch.tensor(counts, device="cuda")
    print(lengths.float().mean().item())
