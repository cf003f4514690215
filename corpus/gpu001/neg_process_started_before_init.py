# silent: the GPU worker is started before the parent touches CUDA; the parent initialises only after the fork.
import multiprocessing as mp

import torch


def background_precompute(out_path):
    table = torch.randn(50_000, 256, device="cuda")
    table = torch.nn.functional.normalize(table, dim=1)
    torch.save(table.cpu(), out_path)


def main():
    helper = mp.Process(target=background_precompute, args=("table.pt",), daemon=True)
    helper.start()

    model = torch.nn.Linear(256, 256).cuda()
    x = torch.randn(64, 256, device="cuda")
    print(model(x).shape)
    helper.join()


if __name__ == "__main__":
    main()
