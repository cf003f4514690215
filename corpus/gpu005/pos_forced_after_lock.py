# hazard: force=True silences the error, but the lock was made under fork and is then handed to spawned workers
import multiprocessing as mp

import torch

write_lock = mp.Lock()


def log_result(rank, lock):
    value = float(torch.arange(3.0, device=f"cuda:{rank}").sum())
    with lock:
        print(rank, value)


if __name__ == "__main__":
    mp.set_start_method("spawn", force=True)  # expect: GPU005(warning)
    procs = [mp.Process(target=log_result, args=(r, write_lock)) for r in range(2)]
    for p in procs:
        p.start()
