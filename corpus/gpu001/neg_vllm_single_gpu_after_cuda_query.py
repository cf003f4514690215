# silent: one GPU, no tensor parallelism: the engine runs in this process and starts no workers.
import torch
from vllm import LLM, SamplingParams

if __name__ == "__main__":
    assert torch.cuda.is_available()
    engine = LLM(model="org/chat-7b")
    print(engine.generate(["Hi"], SamplingParams(max_tokens=8))[0].outputs[0].text)
