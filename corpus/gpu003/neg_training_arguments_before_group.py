# silent: TrainingArguments builds accelerate's state, which binds LOCAL_RANK's device, before the script's own NCCL group (HAZARDS.md GPU003, device bindings come in many spellings)
import torch
import torch.distributed as dist
from transformers import AutoModelForCausalLM, Trainer, TrainingArguments


def main():
    args = TrainingArguments(output_dir="out", per_device_train_batch_size=4)
    if not dist.is_initialized():
        dist.init_process_group("nccl")
    dist.barrier()
    model = AutoModelForCausalLM.from_pretrained("gpt2")
    Trainer(model=model, args=args).train()


if __name__ == "__main__":
    main()
