# silent: the module-level lock made under the old default only guards this process's own prints; no child ever starts to receive it
import multiprocessing as mp

import torch

print_lock = mp.Lock()


def report(step, loss):
    with print_lock:
        print(step, loss)


def train():
    mp.set_start_method("spawn", force=True)
    model = torch.nn.Linear(4, 1).cuda()
    for step in range(3):
        loss = model(torch.ones(2, 4, device="cuda")).sum()
        report(step, float(loss))


if __name__ == "__main__":
    train()
