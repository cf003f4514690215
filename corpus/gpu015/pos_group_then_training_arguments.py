# hazard: order only: TrainingArguments binds LOCAL_RANK's device right after the NCCL group (info)
"""torchrun script: the NCCL group comes first; TrainingArguments then binds LOCAL_RANK's device
(accelerate's state calls set_device). Nothing touches the GPU in between: order-only (info)."""
import torch.distributed as dist
from transformers import AutoModelForCausalLM, Trainer, TrainingArguments


def main():
    dist.init_process_group("nccl")  # expect: GPU015
    args = TrainingArguments(output_dir="out", per_device_train_batch_size=4, deepspeed="ds.json")
    model = AutoModelForCausalLM.from_pretrained("gpt2")
    Trainer(model=model, args=args).train()


if __name__ == "__main__":
    main()
