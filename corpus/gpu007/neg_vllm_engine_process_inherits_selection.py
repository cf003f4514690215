# silent: current vLLM runs its engine in a process of its own, started after the write and inheriting it, so the chosen GPU is the one the engine sees
import os
import sys

import torch
from vllm import LLM, SamplingParams


def main(slot):
    print("first GPU:", torch.cuda.get_device_name(0))
    os.environ["CUDA_VISIBLE_DEVICES"] = slot
    engine = LLM(model="org/rewriter-3b")
    for out in engine.generate(["Rewrite: a cat on a mat."], SamplingParams(max_tokens=32)):
        print(out.outputs[0].text)


if __name__ == "__main__":
    main(sys.argv[1])
