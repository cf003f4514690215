"""vLLM 0.7 builds its engine in the calling process: the GPU chosen through the environment
after the script asked torch about CUDA is ignored, and the engine lands on the first GPU."""
import os
import sys

import torch
from vllm import LLM, SamplingParams


def main(slot):
    print("first GPU:", torch.cuda.get_device_name(0))
    os.environ["CUDA_VISIBLE_DEVICES"] = slot  # expect: GPU007
    engine = LLM(model="org/rewriter-3b")
    for out in engine.generate(["Rewrite: a cat on a mat."], SamplingParams(max_tokens=32)):
        print(out.outputs[0].text)


if __name__ == "__main__":
    main(sys.argv[1])
