# hazard: a TorchScript model is loaded lazily into a global with map_location="cuda:0"; workers that chose other GPUs call it
import torch
import torch.multiprocessing as mp

_SCRIPTED = None


def scripted():
    global _SCRIPTED
    if _SCRIPTED is None:
        _SCRIPTED = torch.jit.load("encoder.pt", map_location="cuda:0")  # expect: GPU002
    return _SCRIPTED


def encode(rank, texts):
    torch.cuda.set_device(rank)
    ids = torch.randint(0, 100, (len(texts), 16), device=f"cuda:{rank}")
    return scripted()(ids)


if __name__ == "__main__":
    mp.spawn(encode, args=(["a", "b"],), nprocs=torch.cuda.device_count())
