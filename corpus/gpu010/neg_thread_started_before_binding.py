# silent: the thread runs and ends before the process sets its GPU; while it runs, the process itself is still on GPU 0
import os
import threading

import torch


def warm_up():
    torch.cuda.synchronize()
    torch.cuda.empty_cache()


if __name__ == "__main__":
    background = threading.Thread(target=warm_up)
    background.start()
    background.join()
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    print(torch.ones(3, device="cuda"))
