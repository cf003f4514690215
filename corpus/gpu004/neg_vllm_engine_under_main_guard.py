# silent: the same engine under the main guard: the spawned workers re-import the module without building it again.
import torch
from vllm import LLM, SamplingParams


def main():
    torch.cuda.set_device(0)
    engine = LLM(model="org/chat-7b", tensor_parallel_size=2)
    print(engine.generate(["Hi"], SamplingParams(max_tokens=8))[0].outputs[0].text)


if __name__ == "__main__":
    main()
