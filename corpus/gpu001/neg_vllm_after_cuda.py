# silent: vLLM >= 0.6.5 notices the initialised CUDA context and starts its tensor-parallel workers with spawn.
import torch
from vllm import LLM, SamplingParams


def main():
    free, total = torch.cuda.mem_get_info()
    print(f"free {free / 2**30:.1f} GiB of {total / 2**30:.1f} GiB")
    llm = LLM(model="facebook/opt-1.3b", tensor_parallel_size=2)
    params = SamplingParams(temperature=0.8, max_tokens=64)
    for out in llm.generate(["The capital of France is"], params):
        print(out.outputs[0].text)


if __name__ == "__main__":
    main()
