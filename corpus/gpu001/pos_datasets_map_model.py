# hazard: datasets .map(num_proc=4) forks via `multiprocess` after the encoder was moved to CUDA; the mapped function runs it.
import torch
from datasets import load_dataset
from transformers import AutoModel, AutoTokenizer

CHECKPOINT = "bert-base-uncased"


def load_encoder(device):
    tokenizer = AutoTokenizer.from_pretrained(CHECKPOINT)
    encoder = AutoModel.from_pretrained(CHECKPOINT).to(device).eval()
    return tokenizer, encoder


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    tokenizer, encoder = load_encoder(device)

    def embed(batch):
        enc = tokenizer(batch["text"], padding=True, truncation=True, return_tensors="pt").to(device)
        with torch.no_grad():
            hidden = encoder(**enc).last_hidden_state
        return {"embedding": hidden[:, 0].cpu().numpy()}

    ds = load_dataset("imdb", split="train")
    ds = ds.map(embed, batched=True, batch_size=64, num_proc=4)  # expect: GPU001
    ds.save_to_disk("imdb_embedded")


if __name__ == "__main__":
    main()
