# silent: a one-process script never sets a device: GPU 0 is the device it means, in every thread
import threading

import torch


def poll_memory(stop):
    while not stop.is_set():
        torch.cuda.synchronize()
        print(torch.cuda.memory_allocated())
        stop.wait(5.0)


if __name__ == "__main__":
    stop = threading.Event()
    threading.Thread(target=poll_memory, args=(stop,), daemon=True).start()
    model = torch.nn.Linear(8, 8).cuda()
    print(model(torch.randn(2, 8).cuda()))
    torch.cuda.empty_cache()
    stop.set()
