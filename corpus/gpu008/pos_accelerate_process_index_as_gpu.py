# hazard: accelerate's process_index counts processes across every node; the evaluator pins its embedding table to that number, which is past the GPUs of the second machine
import torch
from accelerate import PartialState


def build_embeddings(vocab, width):
    state = PartialState()
    table = torch.nn.Embedding(vocab, width)
    return table.to(f"cuda:{state.process_index}")  # expect: GPU008


if __name__ == "__main__":
    emb = build_embeddings(32000, 512)
    print(emb.weight.shape)
