"""Score a JSONL file with a causal LM, one worker process per GPU, done the safe way.

    python multi_gpu_inference_spawn.py prompts.jsonl scores.jsonl --model gpt2

The parent never touches the model. Workers come from a spawn context; each one
binds its GPU first, then loads the model onto it, and only CPU data crosses the
queues.
"""
import argparse
import json
import logging

import torch
import torch.multiprocessing as mp
from transformers import AutoModelForCausalLM, AutoTokenizer

log = logging.getLogger("score")


def load_model(name, device):
    tokenizer = AutoTokenizer.from_pretrained(name)
    tokenizer.pad_token = tokenizer.pad_token or tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.float16).to(device).eval()
    return tokenizer, model


@torch.no_grad()
def sequence_logprob(model, tokenizer, texts, device):
    enc = tokenizer(texts, return_tensors="pt", padding=True, truncation=True, max_length=512).to(device)
    logits = model(**enc).logits[:, :-1].float()
    target = enc["input_ids"][:, 1:]
    logp = torch.log_softmax(logits, dim=-1).gather(-1, target.unsqueeze(-1)).squeeze(-1)
    mask = enc["attention_mask"][:, 1:].float()
    return ((logp * mask).sum(dim=1) / mask.sum(dim=1)).cpu().tolist()


def gpu_worker(gpu, model_name, batch_size, tasks, results):
    torch.cuda.set_device(gpu)
    device = torch.device("cuda", gpu)
    tokenizer, model = load_model(model_name, device)
    while True:
        item = tasks.get()
        if item is None:
            break
        ids, texts = item
        for start in range(0, len(texts), batch_size):
            scores = sequence_logprob(model, tokenizer, texts[start:start + batch_size], device)
            results.put(list(zip(ids[start:start + batch_size], scores)))
    results.put(None)


def read_prompts(path):
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            yield row["id"], row["text"]


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("input")
    p.add_argument("output")
    p.add_argument("--model", default="gpt2")
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--chunk", type=int, default=256)
    return p.parse_args()


def main():
    args = parse_args()
    logging.basicConfig(level=logging.INFO)
    n_gpus = torch.cuda.device_count()
    if n_gpus == 0:
        raise SystemExit("no GPU visible")

    ctx = mp.get_context("spawn")
    tasks, results = ctx.Queue(maxsize=4 * n_gpus), ctx.Queue()
    workers = [
        ctx.Process(target=gpu_worker, args=(g, args.model, args.batch_size, tasks, results), daemon=True)
        for g in range(n_gpus)
    ]
    for w in workers:
        w.start()

    prompts = list(read_prompts(args.input))
    for start in range(0, len(prompts), args.chunk):
        chunk = prompts[start:start + args.chunk]
        tasks.put(([pid for pid, _ in chunk], [text for _, text in chunk]))
    for _ in workers:
        tasks.put(None)

    finished, scored = 0, []
    while finished < n_gpus:
        item = results.get()
        if item is None:
            finished += 1
        else:
            scored.extend(item)
    for w in workers:
        w.join()

    with open(args.output, "w", encoding="utf-8") as fh:
        for pid, score in sorted(scored):
            fh.write(json.dumps({"id": pid, "mean_logprob": score}) + "\n")
    log.info("scored %d prompts on %d GPUs", len(scored), n_gpus)


if __name__ == "__main__":
    main()
