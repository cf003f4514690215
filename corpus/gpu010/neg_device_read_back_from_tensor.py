# silent: the worker's helpers place their buffers on the device of the tensor they are handed (`w.device`), which picks no GPU of its own; "cuda" is the only device it uses
import torch
import torch.multiprocessing as mp


def pack(w, device=None):
    device = device or w.device
    codes = torch.empty(w.numel() // 2, dtype=torch.uint8, device=device)
    return codes


def scratch_like(grad):
    return torch.zeros(grad.shape[0], device=grad.device)


def compress(rank, shards):
    weights = torch.randn(64, 64).cuda()
    for shard in shards:
        print(pack(shard).shape, scratch_like(shard).shape, weights.sum())


if __name__ == "__main__":
    mp.spawn(compress, args=([],), nprocs=2)
