# hazard: each spawned producer puts a CUDA tensor and returns at once; the tensor's memory dies with the producer, so the parent's get() fails with "invalid resource handle".
import torch
import torch.multiprocessing as mp


def render_tile(tile_id, out):
    torch.cuda.set_device(0)
    grid = torch.linspace(0, 1, 512, device="cuda")
    tile = torch.outer(grid, grid) * tile_id
    out.put((tile_id, tile))  # expect: GPU011


if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    workers = [ctx.Process(target=render_tile, args=(i, out)) for i in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    tiles = dict(out.get() for _ in workers)
    print(sum(t.sum().item() for t in tiles.values()))
