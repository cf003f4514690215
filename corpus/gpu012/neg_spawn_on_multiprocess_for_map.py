# silent: the start method is set on `multiprocess`, the package datasets forks with (REAL-BUGS N05), so the map workers are spawned and load the model on their own rank's GPU.
import torch
from datasets import load_dataset
from multiprocess import set_start_method
from transformers import AutoModel, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")
encoder = AutoModel.from_pretrained("bert-base-uncased")


def embed(batch, rank):
    device = f"cuda:{(rank or 0) % torch.cuda.device_count()}"
    encoder.to(device)
    tokens = tokenizer(batch["text"], padding=True, truncation=True, return_tensors="pt").to(device)
    with torch.no_grad():
        return {"embedding": encoder(**tokens).pooler_output.cpu().numpy()}


if __name__ == "__main__":
    set_start_method("spawn")
    rows = load_dataset("imdb", split="test")
    rows = rows.map(embed, batched=True, with_rank=True, num_proc=torch.cuda.device_count())
    rows.save_to_disk("imdb_embedded")
