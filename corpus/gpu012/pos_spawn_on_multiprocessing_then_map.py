# hazard: spawn is requested from `multiprocessing`, but datasets creates its map workers with `multiprocess`, which still forks the parent that put the encoder on CUDA.
import multiprocessing

import torch
from datasets import load_dataset
from transformers import AutoModel, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("sentence-transformers/all-MiniLM-L6-v2")
encoder = AutoModel.from_pretrained("sentence-transformers/all-MiniLM-L6-v2").to("cuda")


def embed(batch):
    tokens = tokenizer(batch["text"], padding=True, truncation=True, return_tensors="pt").to("cuda")
    with torch.no_grad():
        hidden = encoder(**tokens).last_hidden_state
    return {"embedding": hidden.mean(dim=1).cpu().numpy()}


if __name__ == "__main__":
    multiprocessing.set_start_method("spawn")  # expect: GPU012
    corpus = load_dataset("ag_news", split="train[:5%]")
    corpus = corpus.map(embed, batched=True, num_proc=4)  # expect: GPU001
    corpus.save_to_disk("ag_news_embedded")
