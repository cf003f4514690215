# silent: the map workers fork before the parent touches CUDA (the wrong-layer call changes nothing, but nothing needs it); the model goes to the GPU afterwards.
import torch
import torch.multiprocessing as mp
from datasets import load_dataset
from transformers import AutoModelForCausalLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("gpt2")


def encode(batch):
    return tokenizer(batch["text"], truncation=True, max_length=512)


def main():
    mp.set_start_method("spawn")
    rows = load_dataset("wikitext", "wikitext-2-raw-v1", split="train")
    rows = rows.map(encode, batched=True, num_proc=8)
    model = AutoModelForCausalLM.from_pretrained("gpt2").to("cuda")
    ids = torch.tensor(rows[0]["input_ids"], device="cuda").unsqueeze(0)
    print(model(ids).logits.shape)


if __name__ == "__main__":
    main()
