"""The package asks NVML, not the driver, whether a GPU is there, for every module it imports."""
import os

os.environ["PYTORCH_NVML_BASED_CUDA_CHECK"] = "1"
