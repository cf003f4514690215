"""The spawned renderer, in another module of the package, puts CUDA frames and then waits for the parent's word that it has read them, so the memory outlives every use."""
import torch.multiprocessing as mp

from render.frames import render_frames


def main():
    ctx = mp.get_context("spawn")
    queue, finished = ctx.Queue(), ctx.Queue()
    renderer = ctx.Process(target=render_frames, args=(queue, 8, finished))
    renderer.start()
    total = 0.0
    for _ in range(8):
        _, frame = queue.get()
        total += frame.mean().item()
    finished.put(True)
    renderer.join()
    return total


if __name__ == "__main__":
    print(main())
