# hazard: the target is a bound method, so its object is pickled with it; the object holds a threading lock ("cannot pickle '_thread.lock' object")
import threading

import torch
import torch.multiprocessing as mp


class Evaluator:
    def __init__(self, checkpoint):
        self.checkpoint = checkpoint
        self.log_lock = threading.Lock()

    def evaluate(self, device_index):
        torch.cuda.set_device(device_index)
        state = torch.load(self.checkpoint, map_location=f"cuda:{device_index}")
        with self.log_lock:
            print(device_index, len(state))


def run(checkpoint):
    evaluator = Evaluator(checkpoint)
    ctx = mp.get_context("spawn")
    workers = [ctx.Process(target=evaluator.evaluate, args=(i,)) for i in range(2)]  # expect: GPU006
    for w in workers:
        w.start()
    for w in workers:
        w.join()


if __name__ == "__main__":
    run("model.pt")
