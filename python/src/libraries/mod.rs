//! What libraries do, as data: one table per library, each row with its reason. The interpreter looks
//! calls up here by qualified name; no rule hard-codes a library name.

pub mod cupy;
pub mod huggingface;
pub mod processes;
pub mod torch;

pub use gpulint_core::effect::Init;

/// A library call with a fixed CUDA effect.
#[derive(Debug)]
pub struct CudaCall {
    pub name: &'static str,
    pub init: Init,
    pub reason: &'static str,
}

/// Every call whose qualified name starts with `prefix` has `init`, except the names in `except`.
#[derive(Debug)]
pub struct CudaPrefix {
    pub prefix: &'static str,
    pub init: Init,
    pub except: &'static [&'static str],
    pub reason: &'static str,
}

/// Looks up the CUDA effect of a call by its qualified name.
pub fn cuda_call(name: &str) -> Option<(Init, &'static str)> {
    for table in [torch::CUDA_CALLS, cupy::CUDA_CALLS, huggingface::CUDA_CALLS] {
        if let Some(row) = table.iter().find(|row| row.name == name) {
            return Some((row.init, row.reason));
        }
    }
    for row in cupy::CUDA_PREFIXES {
        if name.starts_with(row.prefix) && !row.except.contains(&name) {
            return Some((row.init, row.reason));
        }
    }
    None
}

/// Looks up what importing `module` does to CUDA.
pub fn import_effect(module: &str) -> Option<(Init, &'static str)> {
    cupy::IMPORTS
        .iter()
        .find(|row| row.name == module)
        .map(|row| (row.init, row.reason))
}

/// Top-level packages through which CUDA can enter a program. A program none of whose modules imports
/// one of them cannot initialise CUDA, so it cannot hold any of the hazards: it is not interpreted.
/// (The process APIs — `multiprocessing`, `os.fork`, `datasets` — matter only next to one of these.)
pub const GPU_PACKAGES: &[&str] = &[
    "torch",
    "torchvision",
    "torchaudio",
    "cupy",
    "cupyx",
    "numba",
    "pycuda",
    "transformers",
    "diffusers",
    "peft",
    "optimum",
    "sentence_transformers",
    "accelerate",
    "vllm",
    "deepspeed",
    "lightning",
    "pytorch_lightning",
    "timm",
    "ultralytics",
    "mmengine",
    "tensorflow",
    "jax",
    "cudf",
    "cuml",
    "cucim",
    "tensorrt",
];

/// Spellings that name the same object: the first is rewritten to the second before any lookup.
const ALIASES: &[(&str, &str)] = &[
    ("torch.multiprocessing.Process", "multiprocessing.Process"),
    ("torch.multiprocessing.Pool", "multiprocessing.Pool"),
    (
        "torch.multiprocessing.get_context",
        "multiprocessing.get_context",
    ),
    (
        "torch.multiprocessing.set_start_method",
        "multiprocessing.set_start_method",
    ),
    (
        "torch.multiprocessing.get_start_method",
        "multiprocessing.get_start_method",
    ),
    ("multiprocessing.pool.Pool", "multiprocessing.Pool"),
    ("multiprocessing.context.Process", "multiprocessing.Process"),
    (
        "multiprocessing.process.BaseProcess",
        "multiprocessing.Process",
    ),
    (
        "torch.multiprocessing.spawn.spawn",
        "torch.multiprocessing.spawn",
    ),
    (
        "torch.multiprocessing.spawn.start_processes",
        "torch.multiprocessing.start_processes",
    ),
    (
        "concurrent.futures.process.ProcessPoolExecutor",
        "concurrent.futures.ProcessPoolExecutor",
    ),
    (
        "torch.utils.data.dataloader.DataLoader",
        "torch.utils.data.DataLoader",
    ),
    (
        "torch.utils.data.dataset.Dataset",
        "torch.utils.data.Dataset",
    ),
    (
        "torch.utils.data.dataset.IterableDataset",
        "torch.utils.data.IterableDataset",
    ),
    (
        "torch.nn.parallel.distributed.DistributedDataParallel",
        "torch.nn.parallel.DistributedDataParallel",
    ),
    (
        "torch.nn.parallel.DistributedDataParallel",
        "torch.nn.parallel.DistributedDataParallel",
    ),
    (
        "torch.distributed.distributed_c10d.init_process_group",
        "torch.distributed.init_process_group",
    ),
    ("pycuda.driver", "pycuda.driver"),
];

/// The canonical spelling of a qualified name.
pub fn canonical(name: &str) -> &str {
    ALIASES
        .iter()
        .find(|(from, _)| *from == name)
        .map_or(name, |(_, to)| to)
}
