# hazard: a prefetching thread of a per-GPU worker pins batches through its own current device, which it never set: every worker makes a context on GPU 0
import queue
import threading

import torch
import torch.multiprocessing as mp


class Prefetcher(threading.Thread):
    def __init__(self, source, slots):
        super().__init__(daemon=True)
        self.source = source
        self.slots = slots

    def run(self):
        for item in self.source:
            self.slots.put(item.pin_memory())  # expect: GPU010
        self.slots.put(None)


def worker(rank, chunks):
    torch.cuda.set_device(rank)
    slots = queue.Queue(maxsize=4)
    Prefetcher(chunks, slots).start()
    total = torch.zeros(8, device="cuda")
    while (item := slots.get()) is not None:
        total += item.cuda(non_blocking=True).sum(0)
    print(rank, total)


if __name__ == "__main__":
    data = [torch.randn(32, 8) for _ in range(10)]
    mp.spawn(worker, args=(data,), nprocs=torch.cuda.device_count())
