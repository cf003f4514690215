//! CuPy, Numba and PyCUDA: every array or device call creates a context, and none has a fork guard.

use super::{
    inits, Behaviour, ImportRow, Init, MethodBehaviour, MethodRow, PrefixRow, Receiver, Row,
    CREATES_OBJECT,
};

const fn row(name: &'static str, does: Behaviour, reason: &'static str) -> Row {
    Row { name, does, reason }
}

const DRIVER: Behaviour = inits(Init::Driver);

pub const ROWS: &[Row] = &[
    row(
        "cupy.cuda.runtime.getDeviceCount",
        DRIVER,
        "calls the runtime, which runs `cuInit`",
    ),
    row(
        "cupy.cuda.is_available",
        DRIVER,
        "calls the runtime, which runs `cuInit`",
    ),
    row("numba.cuda.is_available", DRIVER, "initialises the driver"),
    row("numba.cuda.detect", DRIVER, "initialises the driver"),
    row("pycuda.driver.init", DRIVER, "is `cuInit`"),
    row(
        "pycuda.driver.Device",
        DRIVER,
        "needs the initialised driver",
    ),
    row(
        "pycuda.driver.mem_alloc",
        CREATES_OBJECT,
        "allocates device memory",
    ),
    row(
        "pycuda.gpuarray.to_gpu",
        CREATES_OBJECT,
        "allocates device memory",
    ),
    row(
        "pycuda.gpuarray.zeros",
        CREATES_OBJECT,
        "allocates device memory",
    ),
    row(
        "pycuda.gpuarray.empty",
        CREATES_OBJECT,
        "allocates device memory",
    ),
    row(
        "pycuda.compiler.SourceModule",
        CREATES_OBJECT,
        "compiles and loads a module into the current context",
    ),
    row(
        "pycuda.driver.In",
        CREATES_OBJECT,
        "copies the array to the device at the kernel launch",
    ),
    row(
        "pycuda.driver.Out",
        CREATES_OBJECT,
        "copies the array from the device after the kernel launch",
    ),
    row(
        "pycuda.driver.InOut",
        CREATES_OBJECT,
        "copies the array to and from the device around the kernel launch",
    ),
    row(
        "pycuda.driver.Context",
        CREATES_OBJECT,
        "manages CUDA contexts",
    ),
    row(
        "pycuda.driver.to_device",
        CREATES_OBJECT,
        "allocates device memory",
    ),
    row(
        "pycuda.driver.memcpy_htod",
        CREATES_OBJECT,
        "copies to device memory",
    ),
    row(
        "pycuda.driver.memcpy_dtoh",
        CREATES_OBJECT,
        "copies from device memory",
    ),
];

pub const PREFIXES: &[PrefixRow] = &[
    PrefixRow {
        prefix: "cupy.",
        suffix: "",
        class_leaf: false,
        except: &[
            "cupy.get_array_module",
            "cupy.fuse",
            "cupy.RawKernel",
            "cupy.ElementwiseKernel",
            "cupy.ReductionKernel",
        ],
        does: CREATES_OBJECT,
        reason: "CuPy creates a context for any array or device call",
    },
    PrefixRow {
        prefix: "numba.cuda.",
        suffix: "",
        class_leaf: false,
        except: &["numba.cuda.jit"],
        does: CREATES_OBJECT,
        reason: "Numba's CUDA API creates a context on first use",
    },
];

pub const METHODS: &[MethodRow] = &[MethodRow {
    name: "make_context",
    on: Receiver::Any,
    does: MethodBehaviour::CreatesContext,
    reason: "PyCUDA's `Device(i).make_context()`",
}];

pub const IMPORTS: &[ImportRow] = &[ImportRow {
    module: "pycuda.autoinit",
    init: Init::Context,
    sets_env: None,
    sets_env_since: None,
    reason: "creates a context on device 0 at import",
}];
