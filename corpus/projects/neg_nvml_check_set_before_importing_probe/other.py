"""The same probe imported without the NVML check initialises CUDA; this file starts no process, so
nothing is found, but it puts the probe in the import cache as a clean process imports it."""
from probe import HAS_GPU

print(HAS_GPU)
