import torch
from accelerate import Accelerator
from transformers import AutoModelForCausalLM


def get_current_device():
    accelerator = Accelerator()
    return accelerator.local_process_index if torch.cuda.is_available() else "cpu"


def load_policy(model_name):
    current_device = get_current_device()
    model = AutoModelForCausalLM.from_pretrained(model_name, load_in_8bit=True, device_map={"": current_device})
    return model


if __name__ == "__main__":
    policy = load_policy("facebook/opt-350m")
    print(policy.device)
