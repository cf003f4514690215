from pathlib import Path

import torch


def load_training_state(save_dir, save_name, model, optimizer=None):
    save_dir = Path(save_dir)
    state = torch.load(save_dir / f"{save_name}_state_dict.pt")
    model.load_state_dict(state)
    if optimizer is not None:
        optimizer.load_state_dict(torch.load(save_dir / "optimizer.pt"))
    return model, optimizer


def resume(model, optimizer, rank):
    torch.distributed.init_process_group("nccl")
    torch.cuda.set_device(rank)
    model = model.to(f"cuda:{rank}")
    return load_training_state("ckpt", "model", model, optimizer)
