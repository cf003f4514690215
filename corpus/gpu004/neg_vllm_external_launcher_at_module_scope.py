# silent: with distributed_executor_backend="external_launcher" every rank is a process torchrun started, and the engine and its worker stay in that process: vLLM starts no child that could re-import this flat script.
import os

import torch
from vllm import LLM, SamplingParams

torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))

engine = LLM(
    model="org/chat-7b",
    tensor_parallel_size=2,
    distributed_executor_backend="external_launcher",
)
print(engine.generate(["Hi"], SamplingParams(max_tokens=8))[0].outputs[0].text)
