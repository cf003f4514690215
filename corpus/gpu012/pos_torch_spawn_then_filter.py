# hazard: torch.multiprocessing.set_start_method shares multiprocessing's default, not the one of `multiprocess`, which forks datasets' filter workers after the classifier went to CUDA.
import torch
import torch.multiprocessing as mp
from datasets import load_dataset

classifier = torch.nn.Sequential(torch.nn.Linear(784, 64), torch.nn.ReLU(), torch.nn.Linear(64, 2))


def is_clean(example):
    pixels = torch.tensor(example["pixels"], dtype=torch.float32, device="cuda")
    return bool(classifier(pixels).argmax() == 0)


def main():
    mp.set_start_method("spawn", force=True)  # expect: GPU012
    classifier.cuda().eval()
    rows = load_dataset("parquet", data_files="digits.parquet", split="train")
    kept = rows.filter(is_clean, num_proc=8)  # expect: GPU001
    kept.to_parquet("digits_clean.parquet")


if __name__ == "__main__":
    main()
