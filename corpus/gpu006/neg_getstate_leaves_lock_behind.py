# silent: the class decides what it pickles: __getstate__ drops the lock and the child makes its own
import threading

import torch
import torch.multiprocessing as mp


class Writer:
    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.lock = threading.Lock()

    def __getstate__(self):
        state = dict(self.__dict__)
        del state["lock"]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.lock = threading.Lock()

    def write(self, rank):
        t = torch.ones(2, device=f"cuda:{rank}")
        with self.lock:
            torch.save(t.cpu(), f"{self.out_dir}/{rank}.pt")


if __name__ == "__main__":
    writer = Writer("out")
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=writer.write, args=(r,)) for r in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
