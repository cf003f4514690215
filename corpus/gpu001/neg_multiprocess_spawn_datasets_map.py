# silent: multiprocess.set_start_method("spawn") (the package datasets really forks with) before .map(num_proc=..., with_rank=True).
import torch
from datasets import load_dataset
from multiprocess import set_start_method
from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("t5-small")
model = AutoModelForSeq2SeqLM.from_pretrained("t5-small")


def summarise(batch, rank):
    device = f"cuda:{(rank or 0) % torch.cuda.device_count()}"
    model.to(device)
    inputs = tokenizer(batch["article"], truncation=True, padding=True, return_tensors="pt").to(device)
    with torch.no_grad():
        out = model.generate(**inputs, max_new_tokens=60)
    return {"summary": tokenizer.batch_decode(out, skip_special_tokens=True)}


if __name__ == "__main__":
    set_start_method("spawn")
    ds = load_dataset("cnn_dailymail", "3.0.0", split="validation[:2000]")
    ds = ds.map(summarise, batched=True, batch_size=16, with_rank=True, num_proc=torch.cuda.device_count())
    ds.save_to_disk("cnn_summaries")
