# silent: the thread passes the rank's device to each call (or enters it with torch.cuda.device), so nothing runs on GPU 0
import os
import threading

import torch


def drain(device):
    torch.cuda.synchronize(device)
    stream = torch.cuda.current_stream(device)
    print(stream)
    with torch.cuda.device(device):
        torch.cuda.empty_cache()
    scratch = torch.zeros(4, device=device)
    print(scratch)


def main():
    device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
    torch.cuda.set_device(device)
    helper = threading.Thread(target=drain, args=(device,))
    helper.start()
    helper.join()


if __name__ == "__main__":
    main()
