//! Other frameworks and compilers: MXNet, JAX, TensorFlow, Triton, thinc (spaCy's GPU switch), and
//! Horovod's ranks. Each creates its CUDA
//! contexts on first GPU use and has no fork guard: a forked child's GPU work then fails or hangs.

use super::{
    inits, Behaviour, Init, MethodBehaviour, MethodRow, Param, PrefixRow, Receiver, Row,
    CREATES_OBJECT,
};
use crate::libraries::processes::launchers::{ForkAt, ForkingCall, Given, Versions, WorkersRun};
use crate::libraries::processes::Layer;
use gpulint_core::effect::{Launcher, PerGpu, SpawnFix};

const fn row(name: &'static str, does: Behaviour, reason: &'static str) -> Row {
    Row { name, does, reason }
}

const CONTEXT: Behaviour = inits(Init::Context);
const DRIVER: Behaviour = inits(Init::Driver);

/// An MXNet array: on the context `ctx` names, else on MXNet's default context (the CPU unless a
/// `with mx.gpu():` block makes a GPU the default).
const fn mxnet_array(ctx: Param) -> Behaviour {
    Behaviour::Factory {
        device: ctx,
        pin_memory: None,
        default_device: true,
        host_tensor: false,
        size: None,
    }
}

/// A JAX call that starts its backends: the CUDA client creates a context on every visible GPU.
const JAX_BACKEND: &str =
    "starts JAX's backends: the CUDA client creates contexts on the GPUs (a forked child's JAX work then aborts, seen on jax 0.11.2)";

/// A TensorFlow call that starts its runtime: the eager context creates the GPU devices.
const TF_RUNTIME: &str =
    "starts TensorFlow's runtime, which creates the GPU devices (forked children hang)";

/// A TensorFlow 2 eager op.
const TF_EAGER: &str = "an eager op places its result on the first GPU by default when one is visible, which creates TensorFlow's GPU devices (TensorFlow 2.x; tensorflow 57877)";

/// A TensorFlow 1 session (`tf.Session`, kept as `tf.compat.v1.Session` in TensorFlow 2).
const TF_SESSION: &str =
    "a graph-mode session creates a TensorFlow GPU device, with its context and memory pool, on every visible GPU when it is made (TensorFlow 1.x `tf.Session`; `tf.compat.v1` in 1.13 and 2.x); forked children hang";

/// thinc's GPU switch, which spaCy re-exports.
const THINC_GPU: &str =
    "makes CuPy current on the GPU (`set_active_gpu`: `cupy.cuda.Device(gpu_id).use()`, and `torch.cuda.set_device` when torch is installed), which creates a context; `prefer_gpu` does so whenever CuPy sees a GPU, as on every host the rules describe (thinc 8.x `thinc/util.py`)";

pub const ROWS: &[Row] = &[
    // Horovod: one process per GPU, its ranks read from the library.
    row("horovod.torch.rank", Behaviour::ReadsGlobalRank, "Horovod's rank across the whole job"),
    row("horovod.torch.local_rank", Behaviour::ReadsRank, "Horovod's rank on this node"),
    row(
        "horovod.tensorflow.rank",
        Behaviour::ReadsGlobalRank,
        "Horovod's rank across the whole job",
    ),
    row("horovod.tensorflow.local_rank", Behaviour::ReadsRank, "Horovod's rank on this node"),
    // MXNet: `mx.gpu(i)` only names a device; arrays created on it, and GPU counts, touch CUDA.
    row(
        "mxnet.gpu",
        Behaviour::CudaDevice {
            index: Param::pos(0, "device_id"),
        },
        "names a GPU context without touching it; arrays created on it allocate there",
    ),
    row(
        "mxnet.context.gpu",
        Behaviour::Alias("mxnet.gpu"),
        "where it is defined",
    ),
    row(
        "mxnet.test_utils.list_gpus",
        DRIVER,
        "counts GPUs through the CUDA runtime (`mx.util.get_gpu_count`), which runs `cuInit` (gluonts 1054); old releases ran nvidia-smi instead",
    ),
    row(
        "mxnet.util.get_gpu_count",
        DRIVER,
        "counts GPUs through the CUDA runtime, which runs `cuInit`",
    ),
    row(
        "mxnet.context.num_gpus",
        DRIVER,
        "counts GPUs through the CUDA runtime, which runs `cuInit`",
    ),
    row(
        "mxnet.context.gpu_memory_info",
        CONTEXT,
        "asks the device for its free memory, through a context",
    ),
    row(
        "mxnet.nd.array",
        mxnet_array(Param::pos(1, "ctx")),
        "allocates on `ctx`",
    ),
    row(
        "mxnet.nd.zeros",
        mxnet_array(Param::pos(1, "ctx")),
        "allocates on `ctx`",
    ),
    row(
        "mxnet.nd.ones",
        mxnet_array(Param::pos(1, "ctx")),
        "allocates on `ctx`",
    ),
    row(
        "mxnet.nd.empty",
        mxnet_array(Param::pos(1, "ctx")),
        "allocates on `ctx`",
    ),
    row(
        "mxnet.nd.full",
        mxnet_array(Param::pos(2, "ctx")),
        "allocates on `ctx`",
    ),
    row(
        "mxnet.nd.arange",
        mxnet_array(Param::kw("ctx")),
        "allocates on `ctx`",
    ),
    row(
        "mxnet.nd.random.uniform",
        mxnet_array(Param::kw("ctx")),
        "allocates on `ctx`",
    ),
    row(
        "mxnet.nd.random.normal",
        mxnet_array(Param::kw("ctx")),
        "allocates on `ctx`",
    ),
    // JAX: the first call that needs a device starts every backend.
    row("jax.devices", CONTEXT, JAX_BACKEND),
    row("jax.local_devices", CONTEXT, JAX_BACKEND),
    row("jax.device_count", CONTEXT, JAX_BACKEND),
    row("jax.local_device_count", CONTEXT, JAX_BACKEND),
    row("jax.default_backend", CONTEXT, JAX_BACKEND),
    row(
        "jax.device_put",
        CREATES_OBJECT,
        "starts JAX's backends and puts the array on the default device, a GPU when there is one",
    ),
    // TensorFlow: listing devices starts the runtime, and so does an eager op. Only the ops that
    // TensorFlow-only code uses are rows (`tf.Variable`, `tf.matmul`, `tf.random.normal`,
    // `tf.eye`): the common tensor makers (`tf.constant`, `tf.convert_to_tensor`, `tf.zeros`,
    // `tf.ones`, `tf.fill`, `tf.range`, `tf.random.uniform`) also sit on the `return_tensors="tf"`
    // branches of multi-framework code (transformers 4.x collators and processors, datasets'
    // TF formatter), paths that never run in a PyTorch program, and as rows they made GPU001
    // findings on transformers' Trainer.
    row(
        "tensorflow.config.list_physical_devices",
        CONTEXT,
        "initialises the GPUs it lists (forked children hang)",
    ),
    row(
        "tensorflow.config.experimental.list_physical_devices",
        Behaviour::Alias("tensorflow.config.list_physical_devices"),
        "the older spelling",
    ),
    row("tensorflow.config.list_logical_devices", CONTEXT, TF_RUNTIME),
    row("tensorflow.test.is_gpu_available", CONTEXT, TF_RUNTIME),
    row("tensorflow.Variable", CREATES_OBJECT, TF_EAGER),
    row("tensorflow.eye", CREATES_OBJECT, TF_EAGER),
    row("tensorflow.matmul", CREATES_OBJECT, TF_EAGER),
    row("tensorflow.random.normal", CREATES_OBJECT, TF_EAGER),
    row("tensorflow.compat.v1.Session", CONTEXT, TF_SESSION),
    row(
        "tensorflow.Session",
        Behaviour::Alias("tensorflow.compat.v1.Session"),
        "the TensorFlow 1 spelling",
    ),
    row("tensorflow.compat.v1.InteractiveSession", CONTEXT, TF_SESSION),
    row(
        "tensorflow.InteractiveSession",
        Behaviour::Alias("tensorflow.compat.v1.InteractiveSession"),
        "the TensorFlow 1 spelling",
    ),
    // thinc (and spaCy, which re-exports it): switching to the GPU makes CuPy current there.
    row("thinc.util.require_gpu", CONTEXT, THINC_GPU),
    row("thinc.util.prefer_gpu", CONTEXT, THINC_GPU),
    row("thinc.util.set_active_gpu", CONTEXT, THINC_GPU),
    row(
        "thinc.api.require_gpu",
        Behaviour::Alias("thinc.util.require_gpu"),
        "re-exported from `thinc.util`",
    ),
    row(
        "thinc.api.prefer_gpu",
        Behaviour::Alias("thinc.util.prefer_gpu"),
        "re-exported from `thinc.util`",
    ),
    row(
        "thinc.api.set_active_gpu",
        Behaviour::Alias("thinc.util.set_active_gpu"),
        "re-exported from `thinc.util`",
    ),
    row(
        "spacy.require_gpu",
        Behaviour::Alias("thinc.util.require_gpu"),
        "spaCy re-exports thinc's `require_gpu`",
    ),
    row(
        "spacy.prefer_gpu",
        Behaviour::Alias("thinc.util.prefer_gpu"),
        "spaCy re-exports thinc's `prefer_gpu`",
    ),
    // PyTorch Geometric: its loaders are torch's DataLoader with a collater of their own; the
    // worker options pass through `**kwargs`, so only by keyword.
    row("torch_geometric.loader.DataLoader", PYG_LOADER, PYG_LOADER_REASON),
    row(
        "torch_geometric.data.DataLoader",
        Behaviour::Alias("torch_geometric.loader.DataLoader"),
        "the loader's place before PyG 2.0 (kept as a deprecated alias until 2.3)",
    ),
    row("spacy.load", LANGUAGE, "returns the loaded pipeline, a `Language`"),
    row("spacy.blank", LANGUAGE, "returns an empty pipeline, a `Language`"),
    row("spacy.language.Language", LANGUAGE, "a spaCy pipeline"),
    row(
        "spacy.Language",
        Behaviour::Alias("spacy.language.Language"),
        "re-exported from `spacy.language`",
    ),
    row(
        "spacy.language.Language().pipe",
        Behaviour::ForksWorkers(&SPACY_PIPE),
        "spaCy 3: with `n_process` above 1, `pipe` runs the pipeline in `multiprocessing.Process` workers on the default context (`Language._multiprocessing_pipe`); forked, they inherit thinc's GPU ops when the parent called `prefer_gpu`/`require_gpu`",
    ),
    // Lightning: a trainer with a forking strategy forks one rank a device when it runs.
    row("lightning.pytorch.Trainer", Behaviour::ForksWorkers(&LIGHTNING_FORK), LIGHTNING_FORK_WHY),
    row(
        "lightning.Trainer",
        Behaviour::Alias("lightning.pytorch.Trainer"),
        "`lightning` re-exports `lightning.pytorch.Trainer`",
    ),
    row("pytorch_lightning.Trainer", Behaviour::ForksWorkers(&LIGHTNING_FORK), LIGHTNING_FORK_WHY),
    // joblib: `Parallel(n_jobs=N, backend="multiprocessing")(delayed(f)(x) for x in xs)`.
    row(
        "joblib.delayed",
        Behaviour::Defers,
        "returns a function whose call gives back `(function, args, kwargs)` without calling the function (joblib 1.4 `parallel.py`)",
    ),
    row("joblib.parallel.delayed", Behaviour::Alias("joblib.delayed"), "where it is defined"),
    row("joblib.Parallel", Behaviour::ForksWorkers(&JOBLIB_PARALLEL), JOBLIB_WHY),
    row("joblib.parallel.Parallel", Behaviour::Alias("joblib.Parallel"), "where it is defined"),
    // GluonTS 0.5 to 0.9: `train(..., num_workers=N)` on an MXNet estimator makes its batches
    // in `multiprocessing` workers.
    row("gluonts.mx.model.estimator.GluonEstimator", GLUON_ESTIMATOR, "GluonTS's MXNet estimator (`gluonts.mx.model.estimator` from 0.7)"),
    row(
        "gluonts.model.estimator.GluonEstimator",
        Behaviour::Alias("gluonts.mx.model.estimator.GluonEstimator"),
        "its place in GluonTS 0.5 and 0.6",
    ),
    row(
        "gluonts.model.deepar.DeepAREstimator",
        GLUON_ESTIMATOR,
        "a `GluonEstimator` subclass in GluonTS 0.5 to 0.9",
    ),
    row(
        "gluonts.model.simple_feedforward.SimpleFeedForwardEstimator",
        GLUON_ESTIMATOR,
        "a `GluonEstimator` subclass in GluonTS 0.5 to 0.9",
    ),
    row(
        "gluonts.mx.model.estimator.GluonEstimator().train",
        Behaviour::ForksWorkers(&GLUONTS_TRAIN),
        GLUONTS_TRAIN_WHY,
    ),
    // torchrec: `DistributedModelParallel` shards the model when it is made. Without `plan=`, its
    // planner's `collective_plan` broadcasts the plan over the default process group
    // (`broadcast_object_list`, on the current device under NCCL), whatever `device=` says;
    // with `plan=` only the DDP wrap runs, on `device` (torchrec distributed/model_parallel.py).
    row(
        "torchrec.distributed.model_parallel.DistributedModelParallel",
        Behaviour::Collective {
            device: &[Param::kw("plan")],
            group: Param::kw("env"),
            tensors: false,
        },
        "broadcasts its sharding plan at construction, on the current device unless `plan=` is given",
    ),
    row(
        "torchrec.distributed.DistributedModelParallel",
        Behaviour::Alias("torchrec.distributed.model_parallel.DistributedModelParallel"),
        "re-exported by the package",
    ),
];

/// PyTorch Geometric's graph loader.
const PYG_LOADER: Behaviour = Behaviour::Loader {
    dataset: Param::pos(0, "dataset"),
    num_workers: Param::kw("num_workers"),
    // PyG drops a `collate_fn` it is given and collates with its own `Collater`.
    collate_fn: None,
    worker_init_fn: Param::kw("worker_init_fn"),
    context: Param::kw("multiprocessing_context"),
    one_thread: true,
};
const PYG_LOADER_REASON: &str = "a `torch.utils.data.DataLoader` subclass (PyG 2.x `torch_geometric/loader/dataloader.py`) that passes `num_workers` and the other loader options through `**kwargs` (and drops `collate_fn` for its own `Collater`): workers start as torch's do";

/// What spaCy's pipeline constructors return.
const LANGUAGE: Behaviour = Behaviour::Returns("spacy.language.Language()");

/// `nlp.pipe(texts, n_process=N)`: N worker processes, each running the pipeline.
const SPACY_PIPE: ForkingCall = ForkingCall {
    launcher: Launcher {
        subject: "This `pipe(n_process=...)`",
        label: None,
        spawn_help: "call `multiprocessing.set_start_method(\"spawn\")` under the main guard before `pipe` (its workers are `multiprocessing` processes), or keep `n_process=1` on the GPU",
        spawn_fix: SpawnFix::None,
        ends_with_code: false,
        per_gpu: PerGpu::Never,
        data_workers: true,
        inherits_handed: false,
    },
    workers: Param::kw("n_process"),
    above: 1,
    default: 1,
    only_with: None,
    negative_is_all: false,
    unasked_here: true,
    layer: Some(Layer::Multiprocessing),
    runs: WorkersRun::Library {
        package: "thinc",
        what: "the pipeline's model",
    },
    at: ForkAt::Call,
    versions: None,
};

/// `Trainer(strategy="ddp_fork" | "ddp_notebook", ...)`: `fit`, `validate`, `test` and `predict`
/// start one process a device through `_MultiProcessingLauncher`, which calls
/// `torch.multiprocessing.start_processes(..., start_method="fork")`: the fork context, whatever
/// `set_start_method` says. Each rank puts the model on its GPU.
const LIGHTNING_FORK: ForkingCall = ForkingCall {
    launcher: Launcher {
        subject: "This `Trainer` with a forking strategy",
        label: None,
        spawn_help: "keep CUDA out of this process until the trainer runs (load checkpoints with `map_location=\"cpu\"`, no `.cuda()` or GPU tensors before it), or, outside a notebook, use `strategy=\"ddp\"` (each rank a fresh process)",
        spawn_fix: SpawnFix::None,
        ends_with_code: false,
        per_gpu: PerGpu::Never,
        data_workers: false,
        inherits_handed: false,
    },
    workers: Param::kw("devices"),
    above: 0,
    // `devices="auto"`: every GPU, at least one on the hosts the rules describe.
    default: 1,
    only_with: Some((
        Param::kw("strategy"),
        Given::OneOf(&[
            "ddp_fork",
            "ddp_notebook",
            "ddp_fork_find_unused_parameters_false",
            "ddp_fork_find_unused_parameters_true",
            "ddp_notebook_find_unused_parameters_false",
            "ddp_notebook_find_unused_parameters_true",
        ]),
    )),
    negative_is_all: true,
    // `strategy="ddp"` re-runs the script for each further rank; `ddp_spawn` spawns them.
    unasked_here: false,
    layer: None,
    runs: WorkersRun::OnDevices {
        what: "each rank's copy of the model",
        // `accelerator="auto"` (the default) picks CUDA where a GPU is visible.
        accelerator: Some((Param::kw("accelerator"), &["gpu", "cuda", "auto"])),
    },
    at: ForkAt::Methods(&["fit", "validate", "test", "predict"]),
    versions: None,
};
const LIGHTNING_FORK_WHY: &str = "Lightning 2.x: the strategies `ddp_fork` and `ddp_notebook` (and their `_find_unused_parameters_*` forms) are `DDPStrategy` with `start_method=\"fork\"` (`strategies/ddp.py`, `register_strategies`); `fit`/`validate`/`test`/`predict` then fork one process a device with `torch.multiprocessing.start_processes(start_method=\"fork\")` (`_MultiProcessingLauncher`), which refuses to start once `torch.cuda.is_initialized()`; each rank runs the model on its GPU (accelerator `gpu`/`cuda`, or the default `auto` with a GPU visible)";

/// `Parallel(n_jobs=N, backend="multiprocessing")`: calling it with an iterable of `delayed` calls
/// runs them in a `multiprocessing.Pool` of N workers made on the default context.
const JOBLIB_PARALLEL: ForkingCall = ForkingCall {
    launcher: Launcher {
        subject: "This joblib `Parallel` with the multiprocessing backend",
        label: None,
        spawn_help: "drop `backend=\"multiprocessing\"` (joblib's default backend, loky, starts its workers as fresh interpreters), or call `multiprocessing.set_start_method(\"spawn\")` under the main guard",
        spawn_fix: SpawnFix::None,
        ends_with_code: false,
        per_gpu: PerGpu::Never,
        data_workers: false,
        inherits_handed: false,
    },
    workers: Param::pos(0, "n_jobs"),
    above: 1,
    // `n_jobs=None`: one job, run in this process.
    default: 1,
    only_with: Some((Param::pos(1, "backend"), Given::Str("multiprocessing"))),
    // loky's workers are fresh interpreters: the tasks start clean there.
    unasked_here: false,
    negative_is_all: true,
    layer: Some(Layer::Multiprocessing),
    runs: WorkersRun::CallsItems(Param::pos(0, "iterable")),
    at: ForkAt::Methods(&["__call__"]),
    versions: None,
};
const JOBLIB_WHY: &str = "joblib 1.4: with `backend=\"multiprocessing\"` and `n_jobs` above 1 (negative: counted back from the CPUs), calling the `Parallel` runs each `delayed` call in a `multiprocessing.Pool` (`MultiprocessingBackend`, `MemmappingPool`) on `multiprocessing.get_context()`, the default context (unless `JOBLIB_START_METHOD` names another, not read here); with one job it runs them in this process; the default backend, loky, starts each worker as a fresh interpreter (fork then exec, `loky/backend/fork_exec.py`), which inherits no CUDA state";

/// What GluonTS's MXNet estimators are.
const GLUON_ESTIMATOR: Behaviour =
    Behaviour::Returns("gluonts.mx.model.estimator.GluonEstimator()");

/// `estimator.train(data, num_workers=N)`: N `multiprocessing` workers on the default context, each
/// iterating the training data through the estimator's transformation.
const GLUONTS_TRAIN: ForkingCall = ForkingCall {
    launcher: Launcher {
        subject: "This GluonTS `train(num_workers=...)`",
        label: None,
        spawn_help: "drop `num_workers` (the batches are then made in this process), or call `multiprocessing.set_start_method(\"spawn\")` under the main guard",
        spawn_fix: SpawnFix::None,
        ends_with_code: false,
        per_gpu: PerGpu::Never,
        data_workers: true,
        inherits_handed: true,
    },
    workers: Param::pos(2, "num_workers"),
    above: 0,
    // `num_workers=None`: the loader runs in this process.
    default: 0,
    only_with: None,
    negative_is_all: false,
    unasked_here: true,
    layer: Some(Layer::Multiprocessing),
    runs: WorkersRun::ItemsOf(Param::pos(0, "training_data")),
    at: ForkAt::Call,
    versions: Some(Versions {
        package: "gluonts",
        since: [0, 5, 0],
        until: [0, 10, 0],
    }),
};
const GLUONTS_TRAIN_WHY: &str = "GluonTS 0.5 to 0.9: `train` hands `num_workers` to its training loader, which with a number of workers starts them with `multiprocessing` on the default context (a `multiprocessing.Pool` in 0.5's `ParallelDataLoader`, `mp.Process` workers in `MultiProcessBatcher` (0.6, 0.7) and `MultiProcessLoader` (0.8, 0.9)), each iterating the training data through the transformation; on Windows the loader drops the workers. 0.4 has no `num_workers`; from 0.10 `train(**kwargs)` ignores it and the loader starts no processes";

pub const PREFIXES: &[PrefixRow] = &[
    PrefixRow {
        prefix: "jax.numpy.",
        suffix: "",
        class_leaf: false,
        except: &[
            "jax.numpy.dtype",
            "jax.numpy.issubdtype",
            "jax.numpy.result_type",
            "jax.numpy.promote_types",
            "jax.numpy.can_cast",
            "jax.numpy.iinfo",
            "jax.numpy.finfo",
            "jax.numpy.shape",
            "jax.numpy.ndim",
        ],
        does: CREATES_OBJECT,
        reason: "creates the array on the default device, starting JAX's backends: the CUDA client creates contexts on the GPUs (a forked child's `jnp` work then aborts, seen on jax 0.11.2)",
    },
    PrefixRow {
        prefix: "jax.random.",
        suffix: "",
        class_leaf: false,
        except: &[],
        does: CREATES_OBJECT,
        reason: "keys and samples are arrays on the default device: starts JAX's backends",
    },
    PrefixRow {
        prefix: "triton.runtime.driver.active.",
        suffix: "",
        class_leaf: false,
        except: &[],
        does: inits(Init::Context),
        reason: "initialises CUDA through Triton's active driver (seen on triton 3.6.0, through torch's lazy init: a forked child's CUDA use then failed; a raw `cuInit` on triton 3.8, triton PR 9578)",
    },
];

/// Keras 2 (and `tf.keras` up to TensorFlow 2.15): with `use_multiprocessing=True`, `fit`,
/// `evaluate` and `predict` feed batches from a `multiprocessing.Pool` of `workers` processes
/// (default 1) made on the default context, each running the `Sequence`'s `__getitem__`
/// (`OrderedEnqueuer`, `keras/utils/data_utils.py`). Keras 3 moved the option to `PyDataset`.
const KERAS_WORKERS: ForkingCall = ForkingCall {
    launcher: Launcher {
        subject: "This Keras call with `use_multiprocessing=True`",
        label: None,
        spawn_help: "pass `use_multiprocessing=False` (the workers become threads), or call `multiprocessing.set_start_method(\"spawn\")` under the main guard",
        spawn_fix: SpawnFix::None,
        ends_with_code: false,
        per_gpu: PerGpu::Never,
        data_workers: true,
        inherits_handed: true,
    },
    workers: Param::kw("workers"),
    above: 0,
    default: 1,
    only_with: Some((Param::kw("use_multiprocessing"), Given::True)),
    negative_is_all: false,
    unasked_here: true,
    layer: Some(Layer::Multiprocessing),
    runs: WorkersRun::ItemsOf(Param::pos(0, "x")),
    at: ForkAt::Call,
    versions: None,
};
/// The `*_generator` spellings, whose data is their first argument, `generator`.
const KERAS_GENERATOR_WORKERS: ForkingCall = ForkingCall {
    runs: WorkersRun::ItemsOf(Param::pos(0, "generator")),
    ..KERAS_WORKERS
};
const KERAS_REASON: &str = "Keras 2 / `tf.keras` (TensorFlow up to 2.15): with `use_multiprocessing=True` the batches come from a pool of `workers` processes (default 1) forked on the default context, each running the `Sequence`'s `__getitem__`";

const fn keras(name: &'static str, call: &'static ForkingCall) -> MethodRow {
    MethodRow {
        name,
        on: Receiver::Any,
        does: MethodBehaviour::ForksWorkers(call),
        reason: KERAS_REASON,
    }
}

pub const METHODS: &[MethodRow] = &[
    keras("fit", &KERAS_WORKERS),
    keras("evaluate", &KERAS_WORKERS),
    keras("predict", &KERAS_WORKERS),
    keras("fit_generator", &KERAS_GENERATOR_WORKERS),
    keras("evaluate_generator", &KERAS_GENERATOR_WORKERS),
    keras("predict_generator", &KERAS_GENERATOR_WORKERS),
    MethodRow {
        name: "as_in_context",
        on: Receiver::Any,
        does: MethodBehaviour::MovesTo {
            device: Param::pos(0, "context"),
        },
        reason: "MXNet: copies the array to the context named",
    },
    MethodRow {
        name: "copyto",
        on: Receiver::Any,
        does: MethodBehaviour::MovesTo {
            device: Param::pos(0, "other"),
        },
        reason: "MXNet: copies the array to the context (or into the array) named",
    },
    MethodRow {
        name: "initialize",
        on: Receiver::Any,
        // By keyword only: `initialize` is a common method name (`comm.initialize(size, rank)`)
        // and the row applies to any receiver.
        does: MethodBehaviour::MovesTo {
            device: Param::kw("ctx"),
        },
        reason: "MXNet Gluon: creates the block's parameters on `ctx`",
    },
];
