# does torch.device(0) call cuInit? check through the driver API in this process
import ctypes, torch
d = torch.device(0)
lib = ctypes.CDLL("libcuda.so.1")
n = ctypes.c_int(-1)
rc = lib.cuDeviceGetCount(ctypes.byref(n))
print("after torch.device(0): cuDeviceGetCount rc", rc, "(3 = not initialised)", "count", n.value)
