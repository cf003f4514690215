# silent: the encoder is moved back to the CPU in place before each per-GPU process receives it, and each moves it to its own GPU
import torch
import torch.multiprocessing as mp
from sentence_transformers import SentenceTransformer


def serve(device, encoder, texts):
    encoder = encoder.to(device)
    print(encoder.encode(texts, device=device))


def main():
    encoder = SentenceTransformer("all-MiniLM-L6-v2")
    encoder.to("cpu")
    ctx = mp.get_context("spawn")
    procs = [
        ctx.Process(target=serve, args=(f"cuda:{i}", encoder, ["a", "b"]))
        for i in range(torch.cuda.device_count())
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join()


if __name__ == "__main__":
    main()
