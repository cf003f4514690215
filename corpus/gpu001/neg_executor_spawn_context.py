# silent: ProcessPoolExecutor(mp_context=get_context("spawn")) does not inherit the parent's CUDA state.
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import torch


def render_tile(tile_id):
    grid = torch.linspace(-2, 2, 512, device="cuda")
    xx, yy = torch.meshgrid(grid + tile_id, grid, indexing="ij")
    return tile_id, (xx.sin() * yy.cos()).sum().item()


def main():
    preview = torch.zeros(512, 512, device="cuda")
    with ProcessPoolExecutor(max_workers=4, mp_context=get_context("spawn")) as executor:
        tiles = dict(executor.map(render_tile, range(16)))
    print(preview.shape, len(tiles))


if __name__ == "__main__":
    main()
