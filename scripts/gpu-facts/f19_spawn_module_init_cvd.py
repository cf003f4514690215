# every spawned child re-imports this module: the module-level init happens before the worker's CVD write
import os, torch
import torch.multiprocessing as mp
torch.cuda.init()
def worker(i):
    os.environ["CUDA_VISIBLE_DEVICES"] = ""
    print("worker", i, "sees", torch.cuda.device_count(), "devices after writing CVD=''", flush=True)
if __name__ == "__main__":
    mp.spawn(worker, nprocs=2)
