//! Hugging Face and friends: loaders that place models on CUDA, launcher state that binds the
//! device, `datasets`' own process pool, and the trainers whose import changes what
//! `torch.cuda.is_available()` does.

use super::torch::NVML_CHECK_ENV;
use super::{
    AttributeBehaviour, AttributeRow, Behaviour, ImportRow, Init, MethodBehaviour, MethodRow,
    Param, PrefixRow, Receiver, Row,
};

const fn row(name: &'static str, does: Behaviour, reason: &'static str) -> Row {
    Row { name, does, reason }
}

const BINDS: Behaviour = Behaviour::BindsDeviceUnderLauncher {
    init: Init::None,
    owner: false,
};
const BINDS_OWNER: Behaviour = Behaviour::BindsDeviceUnderLauncher {
    init: Init::None,
    owner: true,
};
const FROM_PRETRAINED: Behaviour = Behaviour::LoadsModel {
    device: None,
    device_map: Some(Param::kw("device_map")),
    cuda_when_available: false,
    auto: None,
};
const DATASET: Behaviour = Behaviour::ForkingDataset;

/// Lightning's `load_from_checkpoint` passes `map_location` to `torch.load`; without one it keeps
/// the saved devices while CUDA is available (`_default_map_location` returns `None`), then moves
/// the module to its first tensor's device (pytorch_lightning 2.4 `core/saving.py`).
const LIGHTNING_LOAD: Behaviour = Behaviour::LoadsTensors {
    map_location: Param::pos(1, "map_location"),
    file: Param::pos(0, "checkpoint_path"),
};
const LIGHTNING_LOAD_WHY: &str =
    "restores the checkpoint to the devices it was saved from unless `map_location` says (Lightning 2.x)";

pub const ROWS: &[Row] = &[
    row("pytorch_lightning.LightningModule.load_from_checkpoint", LIGHTNING_LOAD, LIGHTNING_LOAD_WHY),
    row("lightning.pytorch.LightningModule.load_from_checkpoint", LIGHTNING_LOAD, LIGHTNING_LOAD_WHY),
    row(
        "lightning.LightningModule.load_from_checkpoint",
        Behaviour::Alias("lightning.pytorch.LightningModule.load_from_checkpoint"),
        "`lightning` re-exports `lightning.pytorch.LightningModule`",
    ),
    row(
        "pytorch_lightning.core.LightningModule.load_from_checkpoint",
        Behaviour::Alias("pytorch_lightning.LightningModule.load_from_checkpoint"),
        "the same class",
    ),
    row(
        "transformers.utils.is_torch_cuda_available",
        Behaviour::InitsCuda {
            level: Init::Driver,
            object: false,
            safe_in_child: true,
            unless_env: Some((crate::libraries::torch::NVML_CHECK_ENV, "1")),
        },
        "returns `torch.cuda.is_available()`, which calls `cuInit` unless PYTORCH_NVML_BASED_CUDA_CHECK=1",
    ),
    row(
        "transformers.is_torch_cuda_available",
        Behaviour::Alias("transformers.utils.is_torch_cuda_available"),
        "re-exported at the package's top level",
    ),
    row(
        "vllm.platforms.current_platform",
        Behaviour::Object,
        "the platform object (`vllm.platforms.__getattr__` builds it on first use from the plugin that claims the host); its predicates have rows",
    ),
    row(
        "vllm.platforms.current_platform.is_cuda",
        Behaviour::Answers(true),
        "on an NVIDIA CUDA host vLLM's platform is `CudaPlatform` (vllm/platforms/__init__.py picks it when NVML finds a GPU; vllm 0.6 to 0.33)",
    ),
    row(
        "vllm.platforms.current_platform.is_cuda_alike",
        Behaviour::Answers(true),
        "true for CUDA and ROCm platforms; on an NVIDIA CUDA host it is `CudaPlatform` (vllm 0.6 to 0.33)",
    ),
    row(
        "vllm.platforms.current_platform.is_rocm",
        Behaviour::Answers(false),
        "on an NVIDIA CUDA host vLLM's platform is not ROCm: code under `if current_platform.is_rocm():` (importing `vllm.platforms.rocm`, which may ask torch for the GPU's architecture) does not run there (vllm 0.6 to 0.33)",
    ),
    row(
        "vllm.platforms.current_platform.is_cpu",
        Behaviour::Answers(false),
        "on an NVIDIA CUDA host vLLM's platform is not the CPU one (vllm 0.6 to 0.33)",
    ),
    row(
        "vllm.platforms.current_platform.is_tpu",
        Behaviour::Answers(false),
        "on an NVIDIA CUDA host vLLM's platform is not the TPU one (vllm 0.6 to 0.33)",
    ),
    row(
        "vllm.platforms.current_platform.is_xpu",
        Behaviour::Answers(false),
        "on an NVIDIA CUDA host vLLM's platform is not Intel's XPU one (vllm 0.6 to 0.33)",
    ),
    row(
        "vllm.LLM",
        Behaviour::ParallelEngine {
            parallel: &[
                Param::kw("tensor_parallel_size"),
                Param::kw("pipeline_parallel_size"),
            ],
            method_env: "VLLM_WORKER_MULTIPROC_METHOD",
            package: "vllm",
            spawns_since: [0, 6, 5],
            in_child_since: [0, 8, 0],
            in_process_env: ("VLLM_ENABLE_V1_MULTIPROCESSING", "0"),
            in_process_arg: (Param::kw("distributed_executor_backend"), "external_launcher"),
        },
        "builds a CUDA engine: in this process before vllm 0.8; from 0.8 (the V1 engine by default) in a child process unless VLLM_ENABLE_V1_MULTIPROCESSING=0. With tensor or pipeline parallelism it starts a worker per GPU, by VLLM_WORKER_MULTIPROC_METHOD, else fork (before vllm 0.6.5), or spawn where CUDA is already initialised (vllm PR 11184, 0.6.5). With distributed_executor_backend=\"external_launcher\" (each rank started by torchrun) the engine and its one worker stay in this process (vllm 0.33.0's config/parallel.py turns V1 multiprocessing off for it)",
    ),
    row(
        "transformers.pipeline",
        Behaviour::LoadsModel {
            device: Some(Param::kw("device")),
            device_map: Some(Param::kw("device_map")),
            cuda_when_available: false,
            auto: None,
        },
        "places the model on `device` (a negative index is the CPU), or by `device_map`",
    ),
    row(
        "sentence_transformers.SentenceTransformer",
        Behaviour::LoadsModel {
            device: Some(Param::kw("device")),
            device_map: None,
            cuda_when_available: true,
            auto: None,
        },
        "picks CUDA when it is available unless `device=\"cpu\"`",
    ),
    row(
        "flair.embeddings.FlairEmbeddings",
        Behaviour::LoadsModel {
            device: None,
            device_map: None,
            cuda_when_available: true,
            auto: None,
        },
        "loads its character language model onto CUDA when a GPU is available: `LanguageModel.load_language_model` calls `.cuda()` after `is_available()` in 0.4.0, and loads onto `flair.device` (cuda:0 when one is available) from 0.4.1 to 0.15",
    ),
    row(
        "accelerate.Accelerator",
        Behaviour::BindsDeviceUnderLauncher {
            init: Init::Context,
            owner: true,
        },
        "creates a CUDA context: its state picks the device (`torch.cuda.set_device(local_rank)` under a launcher)",
    ),
    row("accelerate.PartialState", BINDS_OWNER, "calls `torch.cuda.set_device(local_rank)` under a launcher; its `device` is that device"),
    row("accelerate.state.PartialState", BINDS_OWNER, "calls `torch.cuda.set_device(local_rank)` under a launcher; its `device` is that device"),
    row("accelerate.AcceleratorState", BINDS, "builds a `PartialState`"),
    row("accelerate.state.AcceleratorState", BINDS, "builds a `PartialState`"),
    row("transformers.TrainingArguments", BINDS, "builds accelerate's `PartialState`"),
    row("transformers.Seq2SeqTrainingArguments", BINDS, "builds accelerate's `PartialState`"),
    row("datasets.load_dataset", DATASET, "a `datasets.Dataset`"),
    row("datasets.load_from_disk", DATASET, "a `datasets.Dataset`"),
    row("datasets.Dataset.from_dict", DATASET, "a `datasets.Dataset`"),
    row("datasets.Dataset.from_list", DATASET, "a `datasets.Dataset`"),
    row("datasets.Dataset.from_pandas", DATASET, "a `datasets.Dataset`"),
    row("datasets.Dataset.from_generator", DATASET, "a `datasets.Dataset`"),
    row("datasets.Dataset.from_csv", DATASET, "a `datasets.Dataset`"),
    row("datasets.Dataset.from_json", DATASET, "a `datasets.Dataset`"),
    row("datasets.Dataset.from_parquet", DATASET, "a `datasets.Dataset`"),
];

pub const PREFIXES: &[PrefixRow] = &[
    PrefixRow {
        prefix: "transformers.",
        suffix: ".from_pretrained",
        class_leaf: false,
        except: &[],
        does: FROM_PRETRAINED,
        reason: "`device_map=` places the model on CUDA",
    },
    PrefixRow {
        prefix: "diffusers.",
        suffix: ".from_pretrained",
        class_leaf: false,
        except: &[],
        does: FROM_PRETRAINED,
        reason: "`device_map=` places the model on CUDA",
    },
    PrefixRow {
        prefix: "peft.",
        suffix: ".from_pretrained",
        class_leaf: false,
        except: &[],
        does: FROM_PRETRAINED,
        reason: "`device_map=` places the model on CUDA",
    },
    PrefixRow {
        prefix: "optimum.",
        suffix: ".from_pretrained",
        class_leaf: false,
        except: &[],
        does: FROM_PRETRAINED,
        reason: "`device_map=` places the model on CUDA",
    },
];

const MAP: MethodBehaviour = MethodBehaviour::MapsDataset {
    function: Param::pos(0, "function"),
    num_proc: Param::kw("num_proc"),
    with_rank: Param::kw("with_rank"),
};

pub const METHODS: &[MethodRow] = &[
    // Precision over recall: `encode(..., convert_to_tensor=True)` does return a CUDA tensor.
    MethodRow {
        name: "encode",
        on: Receiver::CudaObject,
        does: MethodBehaviour::Metadata,
        reason: "sentence-transformers' `encode` returns NumPy arrays unless `convert_to_tensor=True`; a tokenizer's returns lists",
    },
    MethodRow {
        name: "prepare",
        on: Receiver::DeviceOwner,
        does: MethodBehaviour::MovesArgumentsToDevice,
        reason: "`accelerator.prepare` moves each object to the process's device",
    },
    MethodRow {
        name: "map",
        on: Receiver::Dataset,
        does: MAP,
        reason: "forks `num_proc` workers through `multiprocess`",
    },
    MethodRow {
        name: "filter",
        on: Receiver::Dataset,
        does: MAP,
        reason: "forks `num_proc` workers through `multiprocess`",
    },
];

pub const ATTRIBUTES: &[AttributeRow] = &[
    AttributeRow {
        name: "device",
        on: Receiver::DeviceOwner,
        does: AttributeBehaviour::Device,
        reason: "the process's device, chosen per rank",
    },
    // accelerate's state objects (`Accelerator`, `PartialState`): which of their indices is the
    // rank on the node (accelerate/state.py: `process_index` is RANK, `local_process_index`
    // LOCAL_RANK).
    AttributeRow {
        name: "process_index",
        on: Receiver::DeviceOwner,
        does: AttributeBehaviour::RankInJob,
        reason: "accelerate's index of the process across every node (the global rank)",
    },
    AttributeRow {
        name: "local_process_index",
        on: Receiver::DeviceOwner,
        does: AttributeBehaviour::RankOnNode,
        reason: "accelerate's index of the process on its node (the local rank)",
    },
];

/// Importing these sets `PYTORCH_NVML_BASED_CUDA_CHECK=1` for the rest of the process, so a later
/// `torch.cuda.is_available()` counts through NVML and leaves the driver alone.
const NVML_CHECK: Option<(&str, &str)> = Some((NVML_CHECK_ENV, "1"));

pub const IMPORTS: &[ImportRow] = &[
    ImportRow {
        module: "lightning",
        init: Init::None,
        sets_env: NVML_CHECK,
        sets_env_since: None,
        init_in: None,
        init_unless_env: None,
        reason: "imports `lightning.fabric`, whose `__init__` sets PYTORCH_NVML_BASED_CUDA_CHECK=1 (Lightning 2.x)",
    },
    ImportRow {
        module: "lightning_fabric",
        init: Init::None,
        sets_env: NVML_CHECK,
        sets_env_since: None,
        init_in: None,
        init_unless_env: None,
        reason: "its `__init__` sets PYTORCH_NVML_BASED_CUDA_CHECK=1",
    },
    ImportRow {
        module: "pytorch_lightning",
        init: Init::None,
        sets_env: NVML_CHECK,
        sets_env_since: None,
        init_in: None,
        init_unless_env: None,
        reason: "imports `lightning_fabric`, whose `__init__` sets PYTORCH_NVML_BASED_CUDA_CHECK=1 (pytorch_lightning 2.x)",
    },
    ImportRow {
        module: "vllm",
        init: Init::None,
        sets_env: NVML_CHECK,
        sets_env_since: Some([0, 8, 5]),
        init_in: None,
        init_unless_env: None,
        reason: "`vllm.env_override`, run at `import vllm`, sets PYTORCH_NVML_BASED_CUDA_CHECK=1 (vllm PR 15951, in 0.8.5)",
    },
    ImportRow {
        module: "transformers",
        init: Init::Driver,
        sets_env: None,
        sets_env_since: None,
        init_in: Some(([3, 2, 0], Some([4, 2, 0]))),
        init_unless_env: NVML_CHECK,
        reason: "imports `modeling_fsmt` with the other torch models, whose top level calls `torch.cuda.is_available()` to choose apex's fused LayerNorm (checked in the 3.2.0, 3.3.1, 3.5.1, 4.0.1 and 4.1.1 wheels; not in 3.1.0, which has no FSMT; 4.2.0 imports models lazily and dropped the call; transformers 8801, 9338)",
    },
    ImportRow {
        module: "flair",
        init: Init::Driver,
        sets_env: None,
        sets_env_since: None,
        init_in: Some(([0, 4, 1], None)),
        init_unless_env: NVML_CHECK,
        reason: "calls `torch.cuda.is_available()` in `flair/__init__` to set `flair.device` (cuda:0 when a GPU is present): from 0.4.1, still in 0.15; 0.4.0 asked only when loading a model (flair 600)",
    },
];
