//! PyTorch: which calls initialise CUDA, allocate, bind the device, load, and communicate.

use gpulint_core::effect::Backend;

use super::{
    inits, AttributeBehaviour, AttributeRow, Behaviour, EnvRole, EnvRow, Init, LocalRank,
    MethodBehaviour, MethodRow, Param, PrefixRow, Receiver, Row,
};

const fn row(name: &'static str, does: Behaviour, reason: &'static str) -> Row {
    Row { name, does, reason }
}

const CONTEXT: Behaviour = inits(Init::Context);
const NONE: Behaviour = inits(Init::None);
const DEVICE: Param = Param::pos(0, "device");
const FACTORY: Behaviour = sized_factory(None);
/// A factory whose size starts at its first argument (`torch.zeros(3, 4)`, `torch.full((3, 4), x)`).
const SIZED_FACTORY: Behaviour = sized_factory(Some(Param::pos(0, "size")));
/// A factory shaped like its first argument (`torch.zeros_like(x)`).
const LIKE_FACTORY: Behaviour = sized_factory(Some(Param::pos(0, "input")));

const fn sized_factory(size: Option<Param>) -> Behaviour {
    Behaviour::Factory {
        device: Param::kw("device"),
        pin_memory: Some(Param::kw("pin_memory")),
        default_device: true,
        host_tensor: true,
        size,
    }
}
/// A factory without `pin_memory` (`torch.as_tensor`).
const UNPINNED_FACTORY: Behaviour = Behaviour::Factory {
    device: Param::kw("device"),
    pin_memory: None,
    default_device: true,
    host_tensor: true,
    size: None,
};
/// `torch.Generator`: made on a device, but not a tensor.
const GENERATOR: Behaviour = Behaviour::Factory {
    device: Param::kw("device"),
    pin_memory: None,
    default_device: true,
    host_tensor: false,
    size: None,
};
/// An operation that the intra-op thread pool runs on host tensors.
const COMPUTES: &str = "on host tensors it runs on torch's intra-op thread pool (OpenMP), whose threads a forked child does not have";
/// A dataset of tensors: a loader's workers index them for every item.
const TENSOR_DATASET: Behaviour = Behaviour::IndexesArguments;
const COLLECTIVE: Behaviour = Behaviour::Collective {
    device: &[
        Param::kw("device_ids"),
        Param::kw("output_device"),
        Param::kw("device"),
    ],
    group: Param::kw("group"),
    tensors: false,
};
/// A collective on tensors: NCCL runs it on the tensors' device.
const TENSOR_COLLECTIVE: Behaviour = Behaviour::Collective {
    device: &[],
    group: Param::kw("group"),
    tensors: true,
};

/// The backend a process group's backend string selects: NCCL if it names NCCL (alone or for
/// CUDA tensors, `"cpu:gloo,cuda:nccl"`), else a CPU backend.
pub fn backend(name: &str) -> Backend {
    if name.to_ascii_lowercase().contains("nccl") {
        Backend::Nccl
    } else {
        Backend::Cpu
    }
}

/// The dataset methods a loader's workers call for items, in the order they are preferred.
pub const DATASET_ITEM_METHODS: &[&str] = &["__getitem__", "__getitems__", "__iter__"];

/// Packages whose CUDA objects are PyTorch tensors and modules. `import torch` imports
/// `torch.multiprocessing`, which registers reductions that pickle a CUDA tensor (with every queue,
/// pipe and manager of `multiprocessing`) as a CUDA IPC handle to the sender's memory: the receiver
/// maps that memory, which the sender must keep alive (seen on torch 2.11).
pub const SENT_BY_HANDLE: &[&str] = &[
    "torch",
    "torchvision",
    "torchaudio",
    "transformers",
    "diffusers",
    "peft",
    "optimum",
    "sentence_transformers",
    "accelerate",
    "timm",
    "whisper",
    "lightning",
    "pytorch_lightning",
];

/// With this set to 1, `torch.cuda.is_available()` counts through NVML and leaves the driver alone.
pub const NVML_CHECK_ENV: &str = "PYTORCH_NVML_BASED_CUDA_CHECK";

pub const ROWS: &[Row] = &[
    row("torch.cuda.init", CONTEXT, "initialises CUDA explicitly"),
    row("torch.cuda.current_device", CONTEXT, "runs `_lazy_init`"),
    row("torch.cuda.synchronize", CONTEXT, "runs `_lazy_init`"),
    row("torch.cuda.get_device_properties", CONTEXT, "runs `_lazy_init`"),
    row("torch.cuda.get_device_name", CONTEXT, "runs `_lazy_init`"),
    row("torch.cuda.get_device_capability", CONTEXT, "runs `_lazy_init`"),
    row("torch.cuda.mem_get_info", CONTEXT, "queries the device through a context"),
    row("torch.cuda.set_per_process_memory_fraction", CONTEXT, "runs `_lazy_init`"),
    row("torch.cuda.Stream", CONTEXT, "a stream lives in a context"),
    row("torch.cuda.Event", CONTEXT, "an event lives in a context"),
    row("torch.accelerator.current_device_index", CONTEXT, "runs the lazy initialisation"),
    row("torch.accelerator.synchronize", CONTEXT, "runs the lazy initialisation"),
    row(
        "torch.cuda.set_device",
        Behaviour::BindsDevice { device: DEVICE },
        "creates a context on the device",
    ),
    row(
        "torch.cuda.device",
        Behaviour::BindsDevice { device: DEVICE },
        "switches the current device",
    ),
    row(
        "torch.get_device_module().set_device",
        Behaviour::BindsDevice { device: DEVICE },
        "the device's module is `torch.cuda` for a CUDA device: its `set_device`",
    ),
    row(
        "torch.accelerator.set_device_index",
        Behaviour::BindsDevice { device: DEVICE },
        "accelerator-generic `set_device`",
    ),
    row(
        "torch.cuda.FloatTensor",
        Behaviour::CudaTensorType,
        "allocates on the current device",
    ),
    row(
        "torch.cuda.DoubleTensor",
        Behaviour::CudaTensorType,
        "a legacy typed constructor: allocates on the current device (pytorch 4377)",
    ),
    row(
        "torch.cuda.HalfTensor",
        Behaviour::CudaTensorType,
        "a legacy typed constructor: allocates on the current device (pytorch 4377)",
    ),
    row(
        "torch.cuda.BFloat16Tensor",
        Behaviour::CudaTensorType,
        "a legacy typed constructor: allocates on the current device (pytorch 4377)",
    ),
    row(
        "torch.cuda.LongTensor",
        Behaviour::CudaTensorType,
        "a legacy typed constructor: allocates on the current device (pytorch 4377)",
    ),
    row(
        "torch.cuda.IntTensor",
        Behaviour::CudaTensorType,
        "a legacy typed constructor: allocates on the current device (pytorch 4377)",
    ),
    row(
        "torch.cuda.ShortTensor",
        Behaviour::CudaTensorType,
        "a legacy typed constructor: allocates on the current device (pytorch 4377)",
    ),
    row(
        "torch.cuda.CharTensor",
        Behaviour::CudaTensorType,
        "a legacy typed constructor: allocates on the current device (pytorch 4377)",
    ),
    row(
        "torch.cuda.ByteTensor",
        Behaviour::CudaTensorType,
        "a legacy typed constructor: allocates on the current device (pytorch 4377)",
    ),
    row(
        "torch.cuda.BoolTensor",
        Behaviour::CudaTensorType,
        "a legacy typed constructor: allocates on the current device (pytorch 4377)",
    ),
    row(
        "torch.cuda.is_available",
        Behaviour::InitsCuda {
            level: Init::Driver,
            object: false,
            safe_in_child: true,
            unless_env: Some((NVML_CHECK_ENV, "1")),
        },
        "calls `cuInit` unless PYTORCH_NVML_BASED_CUDA_CHECK=1 (pytorch PR 85951)",
    ),
    row(
        "torch.get_device_module().device_count",
        inits(Init::Driver),
        "the accelerator API counts through the driver (pytorch 190708; not seen on torch 2.11.0)",
    ),
    row(
        "torch.__config__.show",
        inits(Init::Driver),
        "reports the CUDA build through the CUDA hooks, which leaves a forked child's CUDA unusable (\"initialization error\") although `torch.cuda.is_initialized()` stays false (pytorch 138453, torch 2.3.0+cu121; torch_geometric calls it at import)",
    ),
    row("torch.cuda.device_count", NONE, "counts through NVML since torch 1.13 (pytorch PR 84879)"),
    row("torch.cuda.manual_seed", NONE, "queued until CUDA is initialised"),
    row("torch.cuda.manual_seed_all", NONE, "queued until CUDA is initialised"),
    row("torch.cuda.empty_cache", NONE, "a no-op before initialisation"),
    row("torch.cuda.memory_allocated", NONE, "a no-op before initialisation"),
    row("torch.cuda.memory_reserved", NONE, "a no-op before initialisation"),
    row("torch.cuda.memory_stats", NONE, "a no-op before initialisation"),
    row("torch.cuda.max_memory_allocated", NONE, "a no-op before initialisation"),
    row("torch.cuda.is_initialized", NONE, "only reads a flag"),
    row("torch.zeros", SIZED_FACTORY, "allocates on `device`"),
    row("torch.ones", SIZED_FACTORY, "allocates on `device`"),
    row("torch.empty", SIZED_FACTORY, "allocates on `device`"),
    row("torch.full", SIZED_FACTORY, "allocates on `device`"),
    row("torch.rand", SIZED_FACTORY, "allocates on `device`"),
    row("torch.randn", SIZED_FACTORY, "allocates on `device`"),
    row("torch.randint", FACTORY, "allocates on `device`"),
    row("torch.randperm", SIZED_FACTORY, "allocates on `device`"),
    row("torch.arange", FACTORY, "allocates on `device`"),
    row("torch.linspace", FACTORY, "allocates on `device`"),
    row("torch.logspace", FACTORY, "allocates on `device`"),
    row("torch.eye", SIZED_FACTORY, "allocates on `device`"),
    row("torch.tensor", FACTORY, "allocates on `device`"),
    row("torch.as_tensor", UNPINNED_FACTORY, "allocates on `device`"),
    row("torch.zeros_like", LIKE_FACTORY, "allocates on `device`"),
    row("torch.ones_like", LIKE_FACTORY, "allocates on `device`"),
    row("torch.empty_like", LIKE_FACTORY, "allocates on `device`"),
    row("torch.full_like", LIKE_FACTORY, "allocates on `device`"),
    row("torch.rand_like", LIKE_FACTORY, "allocates on `device`"),
    row("torch.randn_like", LIKE_FACTORY, "allocates on `device`"),
    row("torch.randint_like", LIKE_FACTORY, "allocates on `device`"),
    row("torch.Generator", GENERATOR, "a CUDA generator lives in a context"),
    row("torch.empty_strided", SIZED_FACTORY, "allocates on `device`"),
    row("torch.sparse_coo_tensor", FACTORY, "allocates on `device`"),
    row("torch.normal", FACTORY, "allocates on `device`"),
    row("torch.nn.functional.linear", Behaviour::Computes, COMPUTES),
    row("torch.nn.functional.conv1d", Behaviour::Computes, COMPUTES),
    row("torch.nn.functional.conv2d", Behaviour::Computes, COMPUTES),
    row("torch.nn.functional.conv3d", Behaviour::Computes, COMPUTES),
    row("torch.equal", Behaviour::ToHost, "compares two tensors: a Python bool"),
    row("torch.allclose", Behaviour::ToHost, "compares two tensors: a Python bool"),
    row("torch.is_tensor", Behaviour::ToHost, "a Python bool"),
    row(
        "torch.set_num_threads",
        Behaviour::LimitsHostThreads {
            count: Param::pos(0, "int"),
        },
        "sets the intra-op pool's thread count; at one, operations run on the calling thread and start no pool",
    ),
    row(
        "torch.device",
        Behaviour::DeviceValue {
            kind: Param::pos(0, "type"),
            index: Param::pos(1, "index"),
        },
        "names a device without touching it; `torch.device(0)` (an int alone) was reported to run `cuInit` on torch 2.5 up to before 2.11 (pytorch 144152); on torch 2.11.0 it did not",
    ),
    row(
        "torch.set_default_device",
        Behaviour::SetsDefaultDevice { device: DEVICE },
        "every later tensor, also in workers, is created there (pytorch 21092)",
    ),
    row(
        "torch.set_default_tensor_type",
        Behaviour::SetsDefaultDevice {
            device: Param::pos(0, "t"),
        },
        "a CUDA tensor type makes every later tensor a CUDA tensor",
    ),
    row(
        "torch.load",
        Behaviour::LoadsTensors {
            map_location: Param::pos(1, "map_location"),
            file: Param::pos(0, "f"),
        },
        "restores tensors to the device they were saved from unless `map_location` says (pytorch 40403)",
    ),
    row(
        "torch.save",
        Behaviour::SavesTensors {
            obj: Param::pos(0, "obj"),
            file: Param::pos(1, "f"),
        },
        "each tensor is saved with its device, and `torch.load` restores it there",
    ),
    row(
        "torch.jit.load",
        Behaviour::LoadsTensors {
            map_location: Param::pos(1, "map_location"),
            file: Param::pos(0, "f"),
        },
        "a TorchScript module is restored to the device `map_location` names, else to the devices it was saved from",
    ),
    row(
        "torch.get_device_module",
        Behaviour::Returns("torch.get_device_module()"),
        "the accelerator's module, whose calls are rows of their own",
    ),
    row("torch.distributed.get_rank", Behaviour::ReadsGlobalRank, "the global rank"),
    row(
        "torch.distributed.get_node_local_rank",
        Behaviour::ReadsRank,
        "the rank on this node",
    ),
    row(
        "torch.distributed.init_process_group",
        Behaviour::ProcessGroup {
            backend: Param::pos(0, "backend"),
            device_id: Param::kw("device_id"),
            world_size: Param::kw("world_size"),
        },
        "NCCL creates its communicator on the current device unless `device_id` names one",
    ),
    row(
        "torch.distributed.distributed_c10d.init_process_group",
        Behaviour::Alias("torch.distributed.init_process_group"),
        "where it is defined",
    ),
    row(
        "torch.distributed.new_group",
        Behaviour::Subgroup {
            backend: Param::kw("backend"),
        },
        "a gloo subgroup's collectives run on the CPU",
    ),
    row("torch.distributed.barrier", COLLECTIVE, "the first collective creates the NCCL communicator"),
    row("torch.distributed.all_reduce", TENSOR_COLLECTIVE, "a collective"),
    row("torch.distributed.broadcast", TENSOR_COLLECTIVE, "a collective"),
    row("torch.distributed.all_gather", TENSOR_COLLECTIVE, "a collective"),
    row("torch.distributed.all_gather_object", COLLECTIVE, "a collective"),
    row("torch.distributed.all_gather_into_tensor", TENSOR_COLLECTIVE, "a collective"),
    row("torch.distributed.reduce", TENSOR_COLLECTIVE, "a collective"),
    row("torch.distributed.scatter", TENSOR_COLLECTIVE, "a collective"),
    row("torch.distributed.gather", TENSOR_COLLECTIVE, "a collective"),
    row("torch.distributed.gather_object", COLLECTIVE, "a collective"),
    row("torch.distributed.reduce_scatter", TENSOR_COLLECTIVE, "a collective"),
    row("torch.distributed.reduce_scatter_tensor", TENSOR_COLLECTIVE, "a collective"),
    row("torch.distributed.all_to_all", TENSOR_COLLECTIVE, "a collective"),
    row("torch.distributed.all_to_all_single", TENSOR_COLLECTIVE, "a collective"),
    row("torch.distributed.broadcast_object_list", COLLECTIVE, "a collective"),
    row("torch.distributed.scatter_object_list", COLLECTIVE, "a collective"),
    row("torch.distributed.send", TENSOR_COLLECTIVE, "point-to-point, on the communicator"),
    row("torch.distributed.recv", TENSOR_COLLECTIVE, "point-to-point, on the communicator"),
    row(
        "torch.nn.parallel.DistributedDataParallel",
        COLLECTIVE,
        "broadcasts the parameters at construction, on the current device unless `device_ids`",
    ),
    row(
        "torch.nn.parallel.distributed.DistributedDataParallel",
        Behaviour::Alias("torch.nn.parallel.DistributedDataParallel"),
        "where it is defined",
    ),
    row(
        "torch.utils.data.DataLoader",
        Behaviour::Loader {
            dataset: Param::pos(0, "dataset"),
            num_workers: Param::pos(5, "num_workers"),
            collate_fn: Some(Param::pos(6, "collate_fn")),
            worker_init_fn: Param::pos(10, "worker_init_fn"),
            context: Param::pos(11, "multiprocessing_context"),
            one_thread: true,
        },
        "forks `num_workers` workers at each iteration under the default context",
    ),
    row(
        "torch.utils.data.dataloader.DataLoader",
        Behaviour::Alias("torch.utils.data.DataLoader"),
        "where it is defined",
    ),
    row(
        "torch.utils.data.TensorDataset",
        TENSOR_DATASET,
        "`__getitem__` indexes each tensor: CUDA tensors are read in the loader's workers",
    ),
    row(
        "torch.utils.data.StackDataset",
        TENSOR_DATASET,
        "`__getitem__` indexes each dataset or tensor it stacks, in the loader's workers",
    ),
    row(
        "torchvision.models.resnet18",
        Behaviour::CreatesParameters,
        "builds a ResNet-18 on the default device",
    ),
    row(
        "torchvision.models.resnet34",
        Behaviour::CreatesParameters,
        "builds a ResNet-34 on the default device",
    ),
    row(
        "torchvision.models.resnet50",
        Behaviour::CreatesParameters,
        "builds a ResNet-50 on the default device",
    ),
    row(
        "torchvision.models.resnet101",
        Behaviour::CreatesParameters,
        "builds a ResNet-101 on the default device",
    ),
    row(
        "torchvision.models.resnet152",
        Behaviour::CreatesParameters,
        "builds a ResNet-152 on the default device",
    ),
    row(
        "torchvision.transforms.Compose",
        Behaviour::Compose {
            steps: Param::pos(0, "transforms"),
        },
        "calls each transform in turn",
    ),
    row(
        "torchvision.transforms.v2.Compose",
        Behaviour::Compose {
            steps: Param::pos(0, "transforms"),
        },
        "calls each transform in turn",
    ),
    row(
        "torchvision.transforms.Lambda",
        Behaviour::Partial,
        "calls the function it wraps (and pickles with it)",
    ),
    row(
        "torchvision.transforms.v2.Lambda",
        Behaviour::Partial,
        "calls the function it wraps (and pickles with it)",
    ),
];

pub const PREFIXES: &[PrefixRow] = &[
    PrefixRow {
        prefix: "torch.nn.",
        suffix: "",
        class_leaf: true,
        except: &[],
        does: Behaviour::CreatesParameters,
        reason: "layers allocate their parameters on the default device",
    },
    PrefixRow {
        prefix: "torchvision.datasets.",
        suffix: "",
        class_leaf: false,
        except: &[],
        does: Behaviour::LibraryDataset {
            transforms: &["transform", "target_transform", "transforms"],
        },
        reason: "its transforms run in the loader's workers",
    },
];

pub const METHODS: &[MethodRow] = &[
    MethodRow {
        name: "set_device",
        on: Receiver::Opaque,
        does: MethodBehaviour::BindsDevice { device: DEVICE },
        reason: "a device abstraction gpulint cannot see into (deepspeed, colossalai `get_accelerator()`) binds the device all the same",
    },
    MethodRow {
        name: "set_device_index",
        on: Receiver::Opaque,
        does: MethodBehaviour::BindsDevice { device: DEVICE },
        reason: "the accelerator-generic spelling, on a device abstraction",
    },
    MethodRow {
        name: "cuda",
        on: Receiver::Any,
        does: MethodBehaviour::MovesToCuda { device: DEVICE },
        reason: "moves a tensor or module to CUDA, creating a context",
    },
    MethodRow {
        name: "to",
        on: Receiver::Any,
        does: MethodBehaviour::MovesTo { device: DEVICE },
        reason: "moves a tensor or module to the device named",
    },
    MethodRow {
        name: "pin_memory",
        on: Receiver::Any,
        does: MethodBehaviour::PinsHostMemory,
        reason: "pinned host memory comes from the CUDA host allocator, which creates a context (a forked child's CUDA use then fails, seen on torch 2.11)",
    },
    MethodRow {
        name: "cpu",
        on: Receiver::Any,
        does: MethodBehaviour::MovesToCpu,
        reason: "brings the data back to the CPU",
    },
    MethodRow {
        name: "state_dict",
        on: Receiver::Any,
        does: MethodBehaviour::State,
        reason: "a module's parameters and buffers, on the devices they live on",
    },
    MethodRow {
        name: "parameters",
        on: Receiver::Any,
        does: MethodBehaviour::Parameters,
        reason: "a module's parameters, on the devices they live on (`torch/nn/modules/module.py`)",
    },
    MethodRow {
        name: "load_state_dict",
        on: Receiver::Any,
        does: MethodBehaviour::LoadsState,
        reason: "copies each tensor of the state into the parameter of its name with `copy_` (`torch/nn/modules/module.py`, `_load_from_state_dict`)",
    },
    MethodRow {
        name: "numpy",
        on: Receiver::Any,
        does: MethodBehaviour::ToCpu,
        reason: "a CPU array",
    },
    MethodRow {
        name: "item",
        on: Receiver::Any,
        does: MethodBehaviour::ToCpu,
        reason: "a Python number",
    },
    MethodRow {
        name: "tolist",
        on: Receiver::Any,
        does: MethodBehaviour::ToCpu,
        reason: "Python numbers",
    },
    metadata("size"),
    metadata("numel"),
    metadata("nelement"),
    metadata("dim"),
    metadata("element_size"),
    metadata("get_device"),
    metadata("stride"),
    metadata("is_contiguous"),
    metadata("data_ptr"),
];

/// A layer's weight holds the product of its first `dims` integer arguments (as many elements at
/// least, where later arguments widen it): what decides whether copying it uses the thread pool.
pub struct LayerWeight {
    pub name: &'static str,
    pub dims: usize,
    pub reason: &'static str,
}

pub const LAYER_WEIGHTS: &[LayerWeight] = &[
    LayerWeight {
        name: "torch.nn.Linear",
        dims: 2,
        reason: "`weight` is out_features × in_features",
    },
    LayerWeight {
        name: "torch.nn.Bilinear",
        dims: 3,
        reason: "`weight` is out_features × in1_features × in2_features",
    },
    LayerWeight {
        name: "torch.nn.Embedding",
        dims: 2,
        reason: "`weight` is num_embeddings × embedding_dim",
    },
    LayerWeight {
        name: "torch.nn.EmbeddingBag",
        dims: 2,
        reason: "`weight` is num_embeddings × embedding_dim",
    },
];

/// A library's model constructor, and the elements of a weight every model it builds holds,
/// whatever its arguments: the largest weight is at least that.
pub struct ModelWeight {
    pub name: &'static str,
    pub numel: u64,
    pub reason: &'static str,
}

/// torchvision's ResNets (checked in torchvision 0.20.1, `torchvision/models/resnet.py`).
const BASIC_RESNET: &str =
    "`layer4` of `BasicBlock` holds `conv3x3(512, 512)` weights, 512 × 512 × 3 × 3 \
     (`BasicBlock` accepts no other `groups` or `width_per_group`)";
const BOTTLENECK_RESNET: &str =
    "`layer4`'s downsampling `conv1x1(1024, 2048)` is 2048 × 1024, whatever \
     `groups`, `width_per_group` or `num_classes` say";

pub const MODEL_WEIGHTS: &[ModelWeight] = &[
    ModelWeight {
        name: "torchvision.models.resnet18",
        numel: 512 * 512 * 9,
        reason: BASIC_RESNET,
    },
    ModelWeight {
        name: "torchvision.models.resnet34",
        numel: 512 * 512 * 9,
        reason: BASIC_RESNET,
    },
    ModelWeight {
        name: "torchvision.models.resnet50",
        numel: 2048 * 1024,
        reason: BOTTLENECK_RESNET,
    },
    ModelWeight {
        name: "torchvision.models.resnet101",
        numel: 2048 * 1024,
        reason: BOTTLENECK_RESNET,
    },
    ModelWeight {
        name: "torchvision.models.resnet152",
        numel: 2048 * 1024,
        reason: BOTTLENECK_RESNET,
    },
];

/// The elements of a layer's weight, from its integer arguments (a model's largest, for a
/// model constructor); 0 when not known.
pub fn layer_weight(name: &str, ints: &[Option<i64>]) -> u64 {
    if let Some(model) = MODEL_WEIGHTS.iter().find(|m| m.name == name) {
        return model.numel;
    }
    let Some(layer) = LAYER_WEIGHTS.iter().find(|l| l.name == name) else {
        return 0;
    };
    let dims = ints.iter().take(layer.dims);
    if dims.len() < layer.dims {
        return 0;
    }
    dims.fold(1u64, |n, d| match d {
        Some(d) if *d > 0 => n.saturating_mul(*d as u64),
        _ => 0,
    })
}

/// A tensor method that reads host-side metadata: its result is a plain value.
const fn metadata(name: &'static str) -> MethodRow {
    MethodRow {
        name,
        on: Receiver::CudaObject,
        does: MethodBehaviour::Metadata,
        reason: "host-side metadata, not a tensor",
    }
}

pub const ATTRIBUTES: &[AttributeRow] = &[
    AttributeRow {
        name: "device",
        on: Receiver::CudaObject,
        does: AttributeBehaviour::Device,
        reason: "the device the tensor or module lives on",
    },
    AttributeRow {
        name: "device",
        on: Receiver::Opaque,
        does: AttributeBehaviour::Device,
        reason: "where a tensor or model gpulint cannot see into already lives: placing something \
                 there follows it, and chooses no GPU",
    },
    AttributeRow {
        name: "device_type",
        on: Receiver::Opaque,
        does: AttributeBehaviour::Device,
        reason: "a device mesh's kind of device (\"cuda\"): it names no GPU of the rank's own",
    },
    AttributeRow {
        name: "shape",
        on: Receiver::CudaObject,
        does: AttributeBehaviour::Metadata,
        reason: "host-side metadata",
    },
    AttributeRow {
        name: "dtype",
        on: Receiver::CudaObject,
        does: AttributeBehaviour::Metadata,
        reason: "host-side metadata",
    },
    AttributeRow {
        name: "ndim",
        on: Receiver::CudaObject,
        does: AttributeBehaviour::Metadata,
        reason: "host-side metadata",
    },
    AttributeRow {
        name: "is_cuda",
        on: Receiver::CudaObject,
        does: AttributeBehaviour::Metadata,
        reason: "host-side metadata",
    },
    AttributeRow {
        name: "training",
        on: Receiver::CudaObject,
        does: AttributeBehaviour::Metadata,
        reason: "a module's flag",
    },
    AttributeRow {
        name: "T",
        on: Receiver::CudaObject,
        does: AttributeBehaviour::Metadata,
        reason: "a transposed view, not followed",
    },
    AttributeRow {
        name: "config",
        on: Receiver::CudaObject,
        does: AttributeBehaviour::Metadata,
        reason: "a model's configuration",
    },
    AttributeRow {
        name: "name_or_path",
        on: Receiver::CudaObject,
        does: AttributeBehaviour::Metadata,
        reason: "a model's name",
    },
    AttributeRow {
        name: "generation_config",
        on: Receiver::CudaObject,
        does: AttributeBehaviour::Metadata,
        reason: "a model's configuration",
    },
];

/// For a variable or call that gives the rank across the job, the variable the same launcher sets
/// to the rank on this node: what a device index should come from instead.
pub const LOCAL_RANKS: &[LocalRank] = &[
    LocalRank {
        global: "RANK",
        local: "LOCAL_RANK",
        reason: "torchrun sets both for every process",
    },
    LocalRank {
        global: "SLURM_PROCID",
        local: "SLURM_LOCALID",
        reason: "Slurm sets both for every task",
    },
    LocalRank {
        global: "torch.distributed.get_rank",
        local: "LOCAL_RANK",
        reason: "torchrun, which sets up the `env://` rendezvous most jobs use, sets it",
    },
];

/// Environment variables that matter: launchers' rank variables, and CUDA's own.
pub const ENV: &[EnvRow] = &[
    EnvRow {
        name: "LOCAL_RANK",
        role: EnvRole::Rank,
        reason: "torchrun's rank on this node",
    },
    EnvRow {
        name: "RANK",
        role: EnvRole::GlobalRank,
        reason: "torchrun's global rank",
    },
    EnvRow {
        name: "SLURM_LOCALID",
        role: EnvRole::Rank,
        reason: "Slurm's task index on this node",
    },
    EnvRow {
        name: "SLURM_PROCID",
        role: EnvRole::GlobalRank,
        reason: "Slurm's global task index",
    },
    EnvRow {
        name: "OMPI_COMM_WORLD_LOCAL_RANK",
        role: EnvRole::Rank,
        reason: "Open MPI's rank on this node",
    },
    EnvRow {
        name: "MASTER_ADDR",
        role: EnvRole::RendezvousHost,
        reason: "where torch.distributed's ranks meet (the rendezvous of `env://`)",
    },
    EnvRow {
        name: "CUDA_VISIBLE_DEVICES",
        role: EnvRole::NarrowsVisibility,
        reason: "read once by `cuInit`: written before, it chooses the process's GPUs",
    },
    EnvRow {
        name: "HIP_VISIBLE_DEVICES",
        role: EnvRole::LauncherVisibility,
        reason: "ROCm's GPU selection, which the launcher sets as it sets the CUDA one",
    },
    EnvRow {
        name: "ROCR_VISIBLE_DEVICES",
        role: EnvRole::LauncherVisibility,
        reason: "the ROCm runtime's GPU selection, which the launcher sets as it sets the CUDA one",
    },
    EnvRow {
        name: NVML_CHECK_ENV,
        role: EnvRole::ChangesCalls,
        reason: "makes `torch.cuda.is_available()` count through NVML",
    },
];

/// The variable `init_process_group`'s default `env://` method reads the number of ranks from
/// when no `world_size=` is given.
pub const WORLD_SIZE_ENV: &str = "WORLD_SIZE";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_local_rank_pairs_a_global_rank_with_a_rank_on_the_node() {
        for row in LOCAL_RANKS {
            let global = super::super::env_role(row.global) == Some(EnvRole::GlobalRank)
                || matches!(
                    super::super::lookup(row.global),
                    Some((Behaviour::ReadsGlobalRank, _))
                );
            assert!(global, "{} gives no global rank", row.global);
            assert_eq!(
                super::super::env_role(row.local),
                Some(EnvRole::Rank),
                "{}",
                row.local
            );
        }
    }
}
