# silent: each pool worker loads its model with device_map={"": gpu} and moves inputs to that GPU by name
import multiprocessing

import torch
from transformers import AutoModelForCausalLM


def generate(name, gpu):
    model = AutoModelForCausalLM.from_pretrained(name, device_map={"": gpu})
    ids = torch.tensor([[1, 2, 3]]).to(f"cuda:{gpu}")
    return model.generate(ids, max_new_tokens=8)


if __name__ == "__main__":
    jobs = [(name, gpu) for gpu, name in enumerate(["model-a", "model-b"])]
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        print(pool.starmap(generate, jobs))
