//! Hugging Face and friends: loaders that place models on CUDA, and `datasets`' own process pool.

use super::{CudaCall, Init};

pub const CUDA_CALLS: &[CudaCall] = &[CudaCall {
    name: "vllm.LLM",
    init: Init::Context,
    reason: "builds a CUDA engine in this process",
}];

/// `from_pretrained` on anything from these packages places the model on CUDA when given `device_map=`.
pub const DEVICE_MAP_LOADERS: &[&str] = &["transformers.", "diffusers.", "peft.", "optimum."];

/// `pipeline(..., device=...)` places the model on that device.
pub const PIPELINE: &str = "transformers.pipeline";

/// Picks CUDA when it is available unless `device="cpu"` is given.
pub const SENTENCE_TRANSFORMER: &str = "sentence_transformers.SentenceTransformer";

/// `Accelerator().device` is the process's CUDA device; `prepare(...)` moves objects there.
pub const ACCELERATOR: &str = "accelerate.Accelerator";

/// Constructors that bind the rank's device under a distributed launcher: accelerate's state (and
/// `TrainingArguments`, which builds it) calls `torch.cuda.set_device(local_rank)`.
pub const DEVICE_BINDING_CONSTRUCTORS: &[&str] = &[
    "accelerate.Accelerator",
    "accelerate.PartialState",
    "accelerate.state.PartialState",
    "accelerate.AcceleratorState",
    "accelerate.state.AcceleratorState",
    "transformers.TrainingArguments",
    "transformers.Seq2SeqTrainingArguments",
];

/// Constructors of `datasets.Dataset` values; their `map`/`filter` fork through `multiprocess`.
pub const DATASET_SOURCES: &[&str] = &[
    "datasets.load_dataset",
    "datasets.load_from_disk",
    "datasets.Dataset.from_dict",
    "datasets.Dataset.from_list",
    "datasets.Dataset.from_pandas",
    "datasets.Dataset.from_generator",
    "datasets.Dataset.from_csv",
    "datasets.Dataset.from_json",
    "datasets.Dataset.from_parquet",
];

/// `Dataset` methods that fork `num_proc` workers through the `multiprocess` package.
pub const DATASET_FORKING_METHODS: &[&str] = &["map", "filter"];
