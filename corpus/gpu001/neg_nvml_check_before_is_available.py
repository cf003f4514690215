# silent: PYTORCH_NVML_BASED_CUDA_CHECK=1 makes is_available() ask NVML without cuInit, so the later fork child may use CUDA.
import os

os.environ["PYTORCH_NVML_BASED_CUDA_CHECK"] = "1"

import multiprocessing as mp  # noqa: E402

import torch  # noqa: E402


def init_and_report(tag):
    torch.cuda.init()
    print(tag, torch.cuda.get_device_name(0))


if __name__ == "__main__":
    if torch.cuda.is_available():
        proc = mp.get_context("fork").Process(target=init_and_report, args=("child",))
        proc.start()
        proc.join()
