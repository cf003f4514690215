from functools import partial

import torch
from torch.utils.data import DataLoader
from transformers import CLIPTokenizer

from dataset import DreamBoothDataset


def collate_fn(examples, tokenizer):
    input_ids = [e["instance_prompt_ids"] for e in examples]
    pixel_values = torch.stack([e["instance_images"] for e in examples]).float()
    input_ids = tokenizer.pad({"input_ids": input_ids}, padding="max_length", return_tensors="pt").input_ids
    return {"input_ids": input_ids, "pixel_values": pixel_values}


def main(instance_dir, prompt):
    tokenizer = CLIPTokenizer.from_pretrained("runwayml/stable-diffusion-v1-5", subfolder="tokenizer")
    train_dataset = DreamBoothDataset(instance_dir, prompt, tokenizer)
    loader = DataLoader(train_dataset, batch_size=4, shuffle=True, collate_fn=partial(collate_fn, tokenizer=tokenizer), num_workers=2)
    for batch in loader:
        print(batch["pixel_values"].shape)


if __name__ == "__main__":
    main("instance_images", "a photo of sks dog")
