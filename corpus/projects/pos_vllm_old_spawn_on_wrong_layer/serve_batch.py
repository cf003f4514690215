"""Asks multiprocessing for spawn, but vLLM 0.5.4 starts its workers itself, by fork unless
VLLM_WORKER_MULTIPROC_METHOD says otherwise; the model check initialised CUDA first."""
import multiprocessing

import torch
from vllm import LLM, SamplingParams


def main():
    multiprocessing.set_start_method("spawn")  # expect: GPU012
    print("devices:", [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())])
    engine = LLM(model="org/chat-7b", tensor_parallel_size=2)  # expect: GPU001
    print(engine.generate(["Hello"], SamplingParams(max_tokens=16))[0].outputs[0].text)


if __name__ == "__main__":
    main()
