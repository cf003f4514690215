"""vLLM 0.6.3 forks its tensor-parallel workers; the script asked torch for CUDA first, so the
workers are forked from an initialised process."""
import torch
from vllm import LLM, SamplingParams


def main():
    if not torch.cuda.is_available():
        raise SystemExit("a GPU is required")
    engine = LLM(model="org/summariser-13b", tensor_parallel_size=2)  # expect: GPU001
    params = SamplingParams(max_tokens=128)
    for result in engine.generate(["Summarise: the meeting moved to Tuesday."], params):
        print(result.outputs[0].text)


if __name__ == "__main__":
    main()
