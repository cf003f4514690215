//! CuPy, Numba, PyCUDA and RAPIDS cuDF: every array or device call creates a context, and none has a
//! fork guard.

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
    // cuDF's readers and constructors build frames in device memory.
    row(
        "cudf.read_csv",
        CREATES_OBJECT,
        "reads the file into a frame in device memory (through RMM): creates a context",
    ),
    row(
        "cudf.read_parquet",
        CREATES_OBJECT,
        "reads the file into a frame in device memory (through RMM): creates a context",
    ),
    row(
        "cudf.read_json",
        CREATES_OBJECT,
        "reads the file into a frame in device memory (through RMM): creates a context",
    ),
    row(
        "cudf.read_orc",
        CREATES_OBJECT,
        "reads the file into a frame in device memory (through RMM): creates a context",
    ),
    row(
        "cudf.read_feather",
        CREATES_OBJECT,
        "reads the file into a frame in device memory (through RMM): creates a context",
    ),
    row(
        "cudf.read_avro",
        CREATES_OBJECT,
        "reads the file into a frame in device memory (through RMM): creates a context",
    ),
    row(
        "cudf.from_pandas",
        CREATES_OBJECT,
        "copies the data into a frame in device memory (through RMM): creates a context",
    ),
    row(
        "cudf.from_arrow",
        CREATES_OBJECT,
        "copies the data into a frame in device memory (through RMM): creates a context",
    ),
    row(
        "cudf.from_dlpack",
        CREATES_OBJECT,
        "copies the data into a frame in device memory (through RMM): creates a context",
    ),
    row(
        "cudf.concat",
        CREATES_OBJECT,
        "builds a new frame in device memory (through RMM): creates a context",
    ),
    row(
        "cudf.merge",
        CREATES_OBJECT,
        "builds a new frame in device memory (through RMM): creates a context",
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
    PrefixRow {
        prefix: "cudf.",
        suffix: "",
        class_leaf: true,
        except: &[],
        does: CREATES_OBJECT,
        reason: "cuDF's frames, series and indexes (`cudf.DataFrame`, `cudf.Series`...) hold their columns in device memory, allocated through RMM, which creates a context",
    },
];

pub const METHODS: &[MethodRow] = &[MethodRow {
    name: "make_context",
    on: Receiver::Any,
    does: MethodBehaviour::CreatesContext,
    reason: "PyCUDA's `Device(i).make_context()`",
}];

pub const IMPORTS: &[ImportRow] = &[
    ImportRow {
        module: "pycuda.autoinit",
        init: Init::Context,
        sets_env: None,
        sets_env_since: None,
        init_in: None,
        init_unless_env: None,
        reason: "creates a context on device 0 at import",
    },
    ImportRow {
        module: "cudf",
        init: Init::Driver,
        sets_env: None,
        sets_env_since: None,
        init_in: None,
        init_unless_env: None,
        reason: "`cudf/__init__` runs `validate_setup()`, which counts the GPUs and reads their attributes through the CUDA runtime (`cuInit`) unless RAPIDS_NO_INITIALIZE or CUDF_NO_INITIALIZE is set (cudf 4827, 5515; in the 2020 releases and since)",
    },
];
