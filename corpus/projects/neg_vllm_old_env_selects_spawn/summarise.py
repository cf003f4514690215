"""The same vLLM 0.6.3 script, with VLLM_WORKER_MULTIPROC_METHOD=spawn set before the engine is
built: the workers start by spawn, and the engine is created under the main guard."""
import os

import torch
from vllm import LLM, SamplingParams

os.environ["VLLM_WORKER_MULTIPROC_METHOD"] = "spawn"


def main():
    if not torch.cuda.is_available():
        raise SystemExit("a GPU is required")
    engine = LLM(model="org/summariser-13b", tensor_parallel_size=2)
    for result in engine.generate(["Summarise: lunch is at noon."], SamplingParams(max_tokens=64)):
        print(result.outputs[0].text)


if __name__ == "__main__":
    main()
