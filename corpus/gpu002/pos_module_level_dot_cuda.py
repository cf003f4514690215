# hazard: `.cuda()` at import runs before the worker's set_device, so every spawned worker's copy of MODEL lands on GPU 0.
import argparse

import torch
import torch.multiprocessing as mp

MODEL = torch.nn.Transformer(d_model=256, nhead=8, num_encoder_layers=2, num_decoder_layers=2).cuda()  # expect: GPU002


def translate(rank, args):
    torch.cuda.set_device(rank)
    src = torch.rand(args.src_len, args.batch, 256, device="cuda")
    tgt = torch.rand(args.tgt_len, args.batch, 256, device=f"cuda:{rank}")
    with torch.no_grad():
        out = MODEL(src, tgt)
    print(f"rank {rank}: {tuple(out.shape)}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--src-len", type=int, default=32)
    parser.add_argument("--tgt-len", type=int, default=32)
    parser.add_argument("--batch", type=int, default=8)
    args = parser.parse_args()
    mp.spawn(translate, args=(args,), nprocs=torch.cuda.device_count())


if __name__ == "__main__":
    main()
