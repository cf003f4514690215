import os
import threading

import torch


class Finalize:
    def __init__(self, fn, timeout=60.0):
        self.fn = fn
        self.timeout = timeout

    def __call__(self, rank):
        local_rank = os.getenv("LOCAL_RANK")
        device = torch.device("cuda", int(local_rank)) if local_rank is not None else torch.device(torch.cuda.current_device())

        def wrapped_fn():
            torch.cuda.set_device(device)
            self.fn()

        worker = threading.Thread(target=wrapped_fn, daemon=True)
        worker.start()
        worker.join(self.timeout)
        if worker.is_alive():
            raise TimeoutError(f"rank {rank}: finalize did not finish")


def release_memory():
    torch.cuda.synchronize()
    torch.cuda.empty_cache()


def restart_iteration(rank, local_rank):
    torch.cuda.set_device(local_rank)
    Finalize(release_memory)(rank)
