# hazard: the child sends a CUDA feature tensor over a pipe, closes its end and exits; the parent's recv() rebuilds a handle to memory that is gone.
import multiprocessing as mp

import torch


def extract(conn, path):
    model = torch.jit.load(path, map_location="cuda")
    frames = torch.rand(16, 3, 224, 224, device="cuda")
    with torch.no_grad():
        features = model(frames)
    conn.send(features)  # expect: GPU011
    conn.close()


if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    parent_end, child_end = ctx.Pipe()
    p = ctx.Process(target=extract, args=(child_end, "encoder.pt"))
    p.start()
    p.join()
    print(parent_end.recv().shape)
