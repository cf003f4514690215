# silent: the variable is blanked only to make any CUDA start inside the block fail loudly, then set back to what the process was launched with; neither write picks a GPU
import contextlib
import os

import torch


@contextlib.contextmanager
def no_gpu_in_block():
    saved = os.environ.get("CUDA_VISIBLE_DEVICES")
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    try:
        yield
    finally:
        if saved is None:
            del os.environ["CUDA_VISIBLE_DEVICES"]
        else:
            os.environ["CUDA_VISIBLE_DEVICES"] = saved


def tokenise(texts):
    return [t.split() for t in texts]


if __name__ == "__main__":
    weights = torch.zeros(16, device="cuda")
    with no_gpu_in_block():
        tokens = tokenise(["a b", "c d"])
    print(weights.sum().item(), len(tokens))
