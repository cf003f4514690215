# silent: the pool worker that puts a CUDA tensor does not exit after put; it waits for its next task, and the pool is closed only after the parent has read every result
import torch
import torch.multiprocessing as mp

results = None


def init_worker(queue):
    global results
    results = queue


def render_tile(tile_id):
    grid = torch.linspace(0, 1, 512, device="cuda")
    tile = torch.outer(grid, grid) * tile_id
    results.put((tile_id, tile))


if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    with ctx.Pool(2, initializer=init_worker, initargs=(out,)) as pool:
        pool.map_async(render_tile, range(4))
        tiles = dict(out.get() for _ in range(4))
        print(sum(t.sum().item() for t in tiles.values()))
