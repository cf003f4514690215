"""Embed a large text file with a sentence encoder, using a process pool to go faster.

The encoder is loaded once in the parent (on the GPU when there is one) and the
pool workers are expected to share it through fork. They cannot: the parent has
a CUDA context when Pool(...) forks, and every worker runs the CUDA model.
"""
import argparse
import logging
from multiprocessing import Pool

import numpy as np
import torch
from transformers import AutoModel, AutoTokenizer

logger = logging.getLogger(__name__)

_tokenizer = None
_encoder = None
_device = None


def load_encoder(name):
    global _tokenizer, _encoder, _device
    _device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    _tokenizer = AutoTokenizer.from_pretrained(name)
    _encoder = AutoModel.from_pretrained(name).to(_device).eval()
    logger.info("loaded %s on %s", name, _device)


def mean_pool(hidden, mask):
    mask = mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-6)


def encode_chunk(lines):
    batch = _tokenizer(lines, padding=True, truncation=True, max_length=256, return_tensors="pt")
    batch = {k: v.to(_device) for k, v in batch.items()}
    with torch.no_grad():
        hidden = _encoder(**batch).last_hidden_state
    vectors = torch.nn.functional.normalize(mean_pool(hidden, batch["attention_mask"]), dim=-1)
    return vectors.cpu().numpy()


def read_chunks(path, chunk_size):
    chunk = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            chunk.append(line)
            if len(chunk) == chunk_size:
                yield chunk
                chunk = []
    if chunk:
        yield chunk


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("input", help="one sentence per line")
    parser.add_argument("output", help="where to write the .npy matrix")
    parser.add_argument("--model", default="sentence-transformers/all-MiniLM-L6-v2")
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--chunk-size", type=int, default=512)
    return parser.parse_args()


def main():
    args = parse_args()
    logging.basicConfig(level=logging.INFO)
    load_encoder(args.model)

    parts = []
    with Pool(processes=args.processes) as pool:  # expect: GPU001
        for i, vecs in enumerate(pool.imap(encode_chunk, read_chunks(args.input, args.chunk_size))):
            parts.append(vecs)
            if i % 50 == 0:
                logger.info("encoded %d chunks", i + 1)

    matrix = np.concatenate(parts, axis=0)
    np.save(args.output, matrix)
    logger.info("wrote %s with shape %s", args.output, matrix.shape)


if __name__ == "__main__":
    main()
