import queue
import threading

import torch


class CUDAWorker:
    def __init__(self):
        self._queue = queue.Queue()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while True:
            name, event = self._queue.get()
            if event is None:
                break
            event.synchronize()
            stream = torch.cuda.current_stream()
            print(name, stream.device)

    def record(self, name):
        event = torch.cuda.Event()
        event.record()
        self._queue.put((name, event))


def profile_step(model, batch, device):
    torch.cuda.set_device(device)
    worker = CUDAWorker()
    model(batch.to(device))
    worker.record("forward")
