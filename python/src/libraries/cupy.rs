//! CuPy, Numba and PyCUDA: every array or device call creates a context, and none has a fork guard.

use super::{CudaCall, CudaPrefix, Init};

pub const CUDA_CALLS: &[CudaCall] = &[
    CudaCall {
        name: "cupy.cuda.runtime.getDeviceCount",
        init: Init::Driver,
        reason: "calls the runtime, which runs `cuInit`",
    },
    CudaCall {
        name: "cupy.cuda.is_available",
        init: Init::Driver,
        reason: "calls the runtime, which runs `cuInit`",
    },
    CudaCall {
        name: "numba.cuda.is_available",
        init: Init::Driver,
        reason: "initialises the driver",
    },
    CudaCall {
        name: "numba.cuda.detect",
        init: Init::Driver,
        reason: "initialises the driver",
    },
    CudaCall {
        name: "pycuda.driver.init",
        init: Init::Driver,
        reason: "is `cuInit`",
    },
    CudaCall {
        name: "pycuda.driver.Device",
        init: Init::Driver,
        reason: "needs the initialised driver",
    },
    CudaCall {
        name: "pycuda.driver.mem_alloc",
        init: Init::Context,
        reason: "allocates device memory",
    },
    CudaCall {
        name: "pycuda.gpuarray.to_gpu",
        init: Init::Context,
        reason: "allocates device memory",
    },
    CudaCall {
        name: "pycuda.gpuarray.zeros",
        init: Init::Context,
        reason: "allocates device memory",
    },
    CudaCall {
        name: "pycuda.gpuarray.empty",
        init: Init::Context,
        reason: "allocates device memory",
    },
    CudaCall {
        name: "pycuda.compiler.SourceModule",
        init: Init::Context,
        reason: "compiles and loads a module into the current context",
    },
    CudaCall {
        name: "pycuda.driver.In",
        init: Init::Context,
        reason: "copies the array to the device at the kernel launch",
    },
    CudaCall {
        name: "pycuda.driver.Out",
        init: Init::Context,
        reason: "copies the array from the device after the kernel launch",
    },
    CudaCall {
        name: "pycuda.driver.InOut",
        init: Init::Context,
        reason: "copies the array to and from the device around the kernel launch",
    },
    CudaCall {
        name: "pycuda.driver.Context",
        init: Init::Context,
        reason: "manages CUDA contexts",
    },
    CudaCall {
        name: "pycuda.driver.to_device",
        init: Init::Context,
        reason: "allocates device memory",
    },
    CudaCall {
        name: "pycuda.driver.memcpy_htod",
        init: Init::Context,
        reason: "copies to device memory",
    },
    CudaCall {
        name: "pycuda.driver.memcpy_dtoh",
        init: Init::Context,
        reason: "copies from device memory",
    },
];

pub const CUDA_PREFIXES: &[CudaPrefix] = &[
    CudaPrefix {
        prefix: "cupy.",
        init: Init::Context,
        except: &[
            "cupy.get_array_module",
            "cupy.fuse",
            "cupy.RawKernel",
            "cupy.ElementwiseKernel",
            "cupy.ReductionKernel",
        ],
        reason: "CuPy creates a context for any array or device call",
    },
    CudaPrefix {
        prefix: "numba.cuda.",
        init: Init::Context,
        except: &["numba.cuda.jit"],
        reason: "Numba's CUDA API creates a context on first use",
    },
];

pub const IMPORTS: &[CudaCall] = &[CudaCall {
    name: "pycuda.autoinit",
    init: Init::Context,
    reason: "creates a context on device 0 at import",
}];
