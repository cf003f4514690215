import ctypes, sys
lib = ctypes.CDLL("libcuda.so.1")
n = ctypes.c_int(-1)
for name in ["torch", "transformers", "accelerate", "lightning", "sentence_transformers", "cupy", "jax", "numba.cuda", "triton", "onnxruntime", "timm"]:
    try:
        __import__(name)
        rc = lib.cuDeviceGetCount(ctypes.byref(n))
        import os
        print(f"import {name}: cuDeviceGetCount rc {rc}; NVML check env {os.environ.get('PYTORCH_NVML_BASED_CUDA_CHECK')}")
    except Exception as e:
        print(f"import {name}: failed {type(e).__name__} {str(e)[:80]}")
