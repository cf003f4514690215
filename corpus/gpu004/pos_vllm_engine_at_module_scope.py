# hazard: current vLLM starts its workers by spawn once CUDA is initialised; a spawned worker re-imports this flat script and builds the engine again.
import torch
from vllm import LLM, SamplingParams

torch.cuda.set_device(0)
print(torch.cuda.get_device_name(0))

engine = LLM(model="org/chat-7b", tensor_parallel_size=2)  # expect: GPU004
print(engine.generate(["Hi"], SamplingParams(max_tokens=8))[0].outputs[0].text)
