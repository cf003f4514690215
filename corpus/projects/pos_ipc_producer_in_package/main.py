"""The spawned renderer, in another module of the package, puts CUDA frames and returns: its memory goes before the parent has read them all."""
import torch.multiprocessing as mp

from render.frames import render_frames


def main():
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    renderer = ctx.Process(target=render_frames, args=(queue, 8))
    renderer.start()
    frames = dict(queue.get() for _ in range(8))
    renderer.join()
    return sum(f.mean().item() for f in frames.values())


if __name__ == "__main__":
    print(main())
