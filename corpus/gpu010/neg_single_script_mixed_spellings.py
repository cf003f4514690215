# silent: one process; "cuda", "cuda:0" and .cuda() are the same GPU
import torch


def main(gpu=0):
    model = torch.nn.Linear(4, 2).to(f"cuda:{gpu}")
    batch = torch.randn(8, 4).cuda()
    print(model(batch))


if __name__ == "__main__":
    main()
