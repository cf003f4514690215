# hazard: spawn is set on `multiprocessing`, but datasets forks through `multiprocess`, so .map(num_proc=8) still forks a CUDA parent.
import multiprocessing

import torch
from datasets import load_dataset
from transformers import CLIPModel, CLIPProcessor

MODEL_ID = "openai/clip-vit-base-patch32"


class ImageEmbedder:
    def __init__(self):
        self.processor = CLIPProcessor.from_pretrained(MODEL_ID)
        self.model = CLIPModel.from_pretrained(MODEL_ID).to("cuda").eval()

    def __call__(self, batch):
        inputs = self.processor(images=batch["image"], return_tensors="pt").to("cuda")
        with torch.no_grad():
            feats = self.model.get_image_features(**inputs)
        return {"clip": feats.cpu().numpy()}


def main():
    multiprocessing.set_start_method("spawn", force=True)  # expect: GPU012
    embedder = ImageEmbedder()
    ds = load_dataset("beans", split="train")
    ds = ds.map(  # expect: GPU001
        embedder,
        batched=True,
        batch_size=32,
        num_proc=8,
    )
    ds.to_parquet("beans_clip.parquet")


if __name__ == "__main__":
    main()
