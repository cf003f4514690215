//! PyTorch: which calls initialise CUDA, which allocate, which are collectives.

use super::{CudaCall, Init};

pub const CUDA_CALLS: &[CudaCall] = &[
    CudaCall {
        name: "torch.cuda.init",
        init: Init::Context,
        reason: "initialises CUDA explicitly",
    },
    CudaCall {
        name: "torch.cuda.set_device",
        init: Init::Context,
        reason: "creates a context on the device",
    },
    CudaCall {
        name: "torch.cuda.current_device",
        init: Init::Context,
        reason: "runs `_lazy_init`",
    },
    CudaCall {
        name: "torch.cuda.synchronize",
        init: Init::Context,
        reason: "runs `_lazy_init`",
    },
    CudaCall {
        name: "torch.cuda.get_device_properties",
        init: Init::Context,
        reason: "runs `_lazy_init`",
    },
    CudaCall {
        name: "torch.cuda.get_device_name",
        init: Init::Context,
        reason: "runs `_lazy_init`",
    },
    CudaCall {
        name: "torch.cuda.get_device_capability",
        init: Init::Context,
        reason: "runs `_lazy_init`",
    },
    CudaCall {
        name: "torch.cuda.mem_get_info",
        init: Init::Context,
        reason: "queries the device through a context",
    },
    CudaCall {
        name: "torch.cuda.set_per_process_memory_fraction",
        init: Init::Context,
        reason: "runs `_lazy_init`",
    },
    CudaCall {
        name: "torch.cuda.Stream",
        init: Init::Context,
        reason: "a stream lives in a context",
    },
    CudaCall {
        name: "torch.cuda.Event",
        init: Init::Context,
        reason: "an event lives in a context",
    },
    CudaCall {
        name: "torch.cuda.device",
        init: Init::Context,
        reason: "switches the current device",
    },
    CudaCall {
        name: "torch.cuda.FloatTensor",
        init: Init::Context,
        reason: "allocates on the current device",
    },
    CudaCall {
        name: "torch.accelerator.set_device_index",
        init: Init::Context,
        reason: "accelerator-generic `set_device`",
    },
    CudaCall {
        name: "torch.accelerator.current_device_index",
        init: Init::Context,
        reason: "runs the lazy initialisation",
    },
    CudaCall {
        name: "torch.accelerator.synchronize",
        init: Init::Context,
        reason: "runs the lazy initialisation",
    },
    CudaCall {
        name: "torch.cuda.is_available",
        init: Init::Driver,
        reason: "calls `cuInit` unless PYTORCH_NVML_BASED_CUDA_CHECK=1 (pytorch PR 85951)",
    },
    CudaCall {
        name: "torch.get_device_module().device_count",
        init: Init::Driver,
        reason: "the accelerator API counts through the driver (pytorch 190708)",
    },
    CudaCall {
        name: "torch.cuda.device_count",
        init: Init::None,
        reason: "counts through NVML since torch 1.13 (pytorch PR 84879)",
    },
    CudaCall {
        name: "torch.cuda.manual_seed",
        init: Init::None,
        reason: "queued until CUDA is initialised",
    },
    CudaCall {
        name: "torch.cuda.manual_seed_all",
        init: Init::None,
        reason: "queued until CUDA is initialised",
    },
    CudaCall {
        name: "torch.cuda.empty_cache",
        init: Init::None,
        reason: "a no-op before initialisation",
    },
    CudaCall {
        name: "torch.cuda.memory_allocated",
        init: Init::None,
        reason: "a no-op before initialisation",
    },
    CudaCall {
        name: "torch.cuda.memory_reserved",
        init: Init::None,
        reason: "a no-op before initialisation",
    },
    CudaCall {
        name: "torch.cuda.memory_stats",
        init: Init::None,
        reason: "a no-op before initialisation",
    },
    CudaCall {
        name: "torch.cuda.max_memory_allocated",
        init: Init::None,
        reason: "a no-op before initialisation",
    },
    CudaCall {
        name: "torch.cuda.is_initialized",
        init: Init::None,
        reason: "only reads a flag",
    },
];

/// Calls that select this process's device (`set_device` and its spellings).
pub const DEVICE_BINDERS: &[&str] = &[
    "torch.cuda.set_device",
    "torch.accelerator.set_device_index",
    "torch.cuda.device",
];

/// Factories that take `device=`; a CUDA device there allocates on it.
pub const FACTORIES: &[&str] = &[
    "torch.zeros",
    "torch.ones",
    "torch.empty",
    "torch.full",
    "torch.rand",
    "torch.randn",
    "torch.randint",
    "torch.randperm",
    "torch.arange",
    "torch.linspace",
    "torch.logspace",
    "torch.eye",
    "torch.tensor",
    "torch.as_tensor",
    "torch.zeros_like",
    "torch.ones_like",
    "torch.empty_like",
    "torch.full_like",
    "torch.rand_like",
    "torch.randn_like",
    "torch.randint_like",
    "torch.Generator",
    "torch.empty_strided",
    "torch.sparse_coo_tensor",
    "torch.normal",
];

/// Collectives: the first one creates the NCCL communicator on the current device.
pub const COLLECTIVES: &[&str] = &[
    "torch.distributed.barrier",
    "torch.distributed.all_reduce",
    "torch.distributed.broadcast",
    "torch.distributed.all_gather",
    "torch.distributed.all_gather_object",
    "torch.distributed.all_gather_into_tensor",
    "torch.distributed.reduce",
    "torch.distributed.scatter",
    "torch.distributed.gather",
    "torch.distributed.gather_object",
    "torch.distributed.reduce_scatter",
    "torch.distributed.reduce_scatter_tensor",
    "torch.distributed.all_to_all",
    "torch.distributed.all_to_all_single",
    "torch.distributed.broadcast_object_list",
    "torch.distributed.scatter_object_list",
    "torch.distributed.send",
    "torch.distributed.recv",
];

/// `new_group(backend="gloo")`: a CPU group; collectives on it never touch a GPU.
pub const NEW_GROUP: &str = "torch.distributed.new_group";
/// How gpulint names a gloo group value.
pub const GLOO_GROUP: &str = "torch.distributed.ProcessGroup<gloo>";

/// Reads that yield this process's rank.
pub const RANK_SOURCES: &[&str] = &[
    "torch.distributed.get_rank",
    "torch.distributed.get_node_local_rank",
];

pub const INIT_PROCESS_GROUP: &str = "torch.distributed.init_process_group";
pub const DDP: &str = "torch.nn.parallel.DistributedDataParallel";
pub const DEVICE: &str = "torch.device";
pub const LOAD: &str = "torch.load";
pub const SET_DEFAULT_DEVICE: &str = "torch.set_default_device";
pub const SET_DEFAULT_TENSOR_TYPE: &str = "torch.set_default_tensor_type";
pub const DATALOADER: &str = "torch.utils.data.DataLoader";
pub const GET_DEVICE_MODULE: &str = "torch.get_device_module";

/// Environment variables that carry this process's rank.
pub const RANK_ENV: &[&str] = &[
    "LOCAL_RANK",
    "RANK",
    "SLURM_LOCALID",
    "SLURM_PROCID",
    "OMPI_COMM_WORLD_LOCAL_RANK",
];

/// With this set to 1, `torch.cuda.is_available()` counts through NVML and leaves the driver alone.
pub const NVML_CHECK_ENV: &str = "PYTORCH_NVML_BASED_CUDA_CHECK";

/// Tensor and module methods that bring data back to the CPU.
pub const TO_CPU_METHODS: &[&str] = &["cpu", "numpy", "item", "tolist"];

/// Driver-level queries that return a default in a forked child instead of raising.
pub const SAFE_IN_FORKED_CHILD: &[&str] = &["torch.cuda.is_available"];

/// `torch.nn` layers (`torch.nn.Linear`, ...): they allocate parameters on the default device.
pub fn creates_parameters(name: &str) -> bool {
    name.strip_prefix("torch.nn.").is_some_and(|rest| {
        !rest.contains('.') && rest.starts_with(|c: char| c.is_ascii_uppercase())
    })
}
