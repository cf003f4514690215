# silent: spawn is set on `multiprocessing` and datasets still forks, but the mapped function only tokenizes on the CPU: the extra call is harmless.
import multiprocessing

import torch
from datasets import load_dataset
from transformers import AutoModelForSequenceClassification, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("distilbert-base-uncased")


def tokenize(batch):
    return tokenizer(batch["text"], truncation=True, max_length=256)


if __name__ == "__main__":
    multiprocessing.set_start_method("spawn")
    model = AutoModelForSequenceClassification.from_pretrained("distilbert-base-uncased").to("cuda")
    rows = load_dataset("imdb", split="train")
    rows = rows.map(tokenize, batched=True, num_proc=8)
    rows.set_format("torch", columns=["input_ids", "attention_mask", "label"])
    print(model.config.num_labels, len(rows))
