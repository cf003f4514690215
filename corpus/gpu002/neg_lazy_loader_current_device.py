# silent: the lazy loader places the model on the current device, and each worker calls set_device(rank) before the first load.
import torch
import torch.multiprocessing as mp
from torch import nn

_detector = None


def get_detector():
    global _detector
    if _detector is None:
        _detector = nn.Conv2d(3, 8, kernel_size=5).cuda().eval()
    return _detector


def detect_worker(rank, n_images):
    torch.cuda.set_device(rank)
    det = get_detector()
    frames = torch.rand(n_images, 3, 128, 128, device="cuda")
    with torch.no_grad():
        print(rank, det(frames).amax().item())


if __name__ == "__main__":
    mp.spawn(detect_worker, args=(32,), nprocs=torch.cuda.device_count())
