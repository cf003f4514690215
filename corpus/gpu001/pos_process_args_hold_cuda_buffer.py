# hazard: a forked Process is handed a dict holding a CUDA tensor; the target only logs, but the child holds the tensor and frees it when it exits.
import multiprocessing as mp
import time

import torch


def heartbeat(state, beats):
    for step in range(beats):
        print("alive", step, sorted(state))
        time.sleep(0.1)


if __name__ == "__main__":
    state = {"scores": torch.zeros(1024, device="cuda"), "epoch": 0}
    watcher = mp.Process(target=heartbeat, args=(state, 3))
    watcher.start()  # expect: GPU001
    state["scores"] += 1
    watcher.join()
