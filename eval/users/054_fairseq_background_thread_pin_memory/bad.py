import queue
import threading

import torch
from torch.utils.data import DataLoader


class BackgroundConsumer(threading.Thread):
    def __init__(self, out_queue, loader):
        super().__init__(daemon=True)
        self.out_queue = out_queue
        self.loader = loader

    def run(self):
        for batch in self.loader:
            self.out_queue.put(batch)
        self.out_queue.put(None)


def buffered_batches(dataset, local_rank):
    torch.cuda.set_device(local_rank)
    loader = DataLoader(dataset, batch_size=32, num_workers=4, pin_memory=True)
    q = queue.Queue(maxsize=8)
    BackgroundConsumer(q, loader).start()
    while (batch := q.get()) is not None:
        yield batch.cuda(non_blocking=True)
