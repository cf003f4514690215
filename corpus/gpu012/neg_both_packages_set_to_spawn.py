# silent: spawn is set on both packages, so the torch workers and datasets' map workers each start a fresh interpreter.
import multiprocessing

import multiprocess
import torch
from datasets import load_dataset

scorer = torch.nn.Linear(16, 1)


def score(batch):
    scorer.to("cuda")
    features = torch.tensor(batch["features"], device="cuda")
    return {"score": scorer(features).squeeze(-1).tolist()}


if __name__ == "__main__":
    multiprocessing.set_start_method("spawn")
    multiprocess.set_start_method("spawn")
    print(torch.cuda.get_device_name(0))
    rows = load_dataset("json", data_files="features.jsonl", split="train")
    rows = rows.map(score, batched=True, num_proc=4)
    rows.to_json("scored.jsonl")
