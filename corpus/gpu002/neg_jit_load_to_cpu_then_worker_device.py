# silent: the TorchScript model is loaded on the CPU into the global, and each worker moves a copy to its own GPU (HAZARDS.md GPU002, global kept on the CPU)
import torch
import torch.multiprocessing as mp

_SCRIPTED = None


def scripted():
    global _SCRIPTED
    if _SCRIPTED is None:
        _SCRIPTED = torch.jit.load("encoder.pt", map_location="cpu")
    return _SCRIPTED


def encode(rank, texts):
    device = torch.device("cuda", rank)
    model = scripted().to(device)
    ids = torch.randint(0, 100, (len(texts), 16), device=device)
    return model(ids)


if __name__ == "__main__":
    mp.spawn(encode, args=(["a", "b"],), nprocs=torch.cuda.device_count())
