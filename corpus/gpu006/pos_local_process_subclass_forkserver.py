# hazard: the process subclass is defined inside a function; under forkserver the process object itself is pickled, and its class cannot be imported by the server
import multiprocessing as mp

import torch


def measure_peak_memory(device_index):
    class Probe(mp.Process):
        def run(self):
            torch.cuda.set_device(device_index)
            x = torch.empty(1 << 20, device="cuda")
            print(torch.cuda.max_memory_allocated(), x.numel())

    probe = Probe()
    probe.start()  # expect: GPU006
    probe.join()


if __name__ == "__main__":
    mp.set_start_method("forkserver")
    measure_peak_memory(0)
