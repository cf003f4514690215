//! What libraries do, as data. Each row maps a qualified name (or, for methods and attributes, a
//! name on a kind of receiver) to a [`Behaviour`], with the reason it holds and, where it depends on
//! one, the version. The interpreter looks a name up once ([`lookup`]) and acts on the row's kind;
//! it names no library itself. One table per library or family: `torch.rs`, `processes.rs`,
//! `gpu_arrays.rs` (CuPy, Numba, PyCUDA, cuDF), `frameworks.rs` (MXNet, JAX, TensorFlow, Triton, thinc),
//! `inference.rs` (ONNX Runtime, CTranslate2, Whisper), `huggingface.rs`, `python.rs` (builtins and
//! the standard library's plumbing).

pub mod decisive;
pub mod frameworks;
pub mod gpu_arrays;
pub mod huggingface;
pub mod inference;
pub mod installed;
pub mod per_thread;
pub mod process_state;
pub mod processes;
pub mod python;
pub mod torch;
pub mod torch_ops;

use std::sync::OnceLock;

use rustc_hash::FxHashMap;

use crate::target::PythonVersion;
pub use gpulint_core::effect::Init;
use processes::{Carrier, Layer, ProcessApi, WorkerCall};

/// Where a call's argument is: its position (when it may be passed positionally) and its keyword.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    pub index: Option<usize>,
    pub name: &'static str,
}

impl Param {
    pub const fn pos(index: usize, name: &'static str) -> Param {
        Param {
            index: Some(index),
            name,
        }
    }
    pub const fn kw(name: &'static str) -> Param {
        Param { index: None, name }
    }
}

/// What a library call does, as far as the hazards care.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Behaviour {
    /// Another spelling of the row named here.
    Alias(&'static str),
    /// Moves the process's CUDA state to `level`. `object`: returns a CUDA object on the current
    /// device; `safe_in_child`: a forked child may call it (it returns a default); `unless_env`: has
    /// no effect while this environment variable has this value.
    InitsCuda {
        level: Init,
        object: bool,
        safe_in_child: bool,
        unless_env: Option<(&'static str, &'static str)>,
    },
    /// A legacy typed CUDA tensor constructor: allocates on the current device, and as the default
    /// tensor type makes every later tensor a CUDA tensor.
    CudaTensorType,
    /// Selects the process's device (creating a context there).
    BindsDevice { device: Param },
    /// Binds the rank's device when the process runs under a distributed launcher (a rank);
    /// `owner`: returns an object whose `device` is that device (`AttributeRow`, `MethodRow`).
    BindsDeviceUnderLauncher { init: Init, owner: bool },
    /// Allocates a tensor on the device `device` names, else (`default_device`) on the default
    /// device `SetsDefaultDevice` chose. `pin_memory=True` pins host memory through the CUDA host
    /// allocator, which creates a context. `host_tensor`: without a CUDA device the result is a
    /// tensor in host memory, whose operations may run on the intra-op thread pool.
    Factory {
        device: Param,
        pin_memory: Option<Param>,
        default_device: bool,
        host_tensor: bool,
        /// Where its size starts (`*size` from there, a tuple, or a tensor whose shape it
        /// copies): the elements decide whether a filling factory splits across threads.
        size: Option<Param>,
    },
    /// Computes on its tensor arguments (`torch.nn.functional.linear`): on host tensors, through the intra-op
    /// thread pool, which starts its threads.
    Computes,
    /// Sets how many threads the intra-op pool uses (`torch.set_num_threads(n)`); one thread means
    /// no pool.
    LimitsHostThreads { count: Param },
    /// A layer whose parameters are created on the default device.
    CreatesParameters,
    /// A device value built from a type and an index.
    DeviceValue { kind: Param, index: Param },
    /// A CUDA device value: the ordinal `index` names, else device 0.
    CudaDevice { index: Param },
    /// Sets the default device (or tensor type) of every later allocation.
    SetsDefaultDevice { device: Param },
    /// Restores saved tensors from `file` to the device `map_location` names (unknown without it).
    LoadsTensors { map_location: Param, file: Param },
    /// Saves `obj` to `file`, each tensor with the device it is on.
    SavesTensors { obj: Param, file: Param },
    /// Loads a model: onto the device `device` names, else onto CUDA when `device_map` is given,
    /// else (`cuda_when_available`) onto CUDA when it is available. `auto`: a `device` string that
    /// asks for CUDA when it is available.
    LoadsModel {
        device: Option<Param>,
        device_map: Option<Param>,
        cuda_when_available: bool,
        auto: Option<&'static str>,
    },
    /// Loads a model onto CUDA when the list `providers` names one of `cuda` (as a name, or as
    /// the first item of a `(name, options)` pair); with other providers it stays on the CPU.
    LoadsOnProviders {
        providers: Param,
        cuda: &'static [&'static str],
    },
    /// Returns this process's rank on its node (or a worker index).
    ReadsRank,
    /// Returns this process's rank across the whole job.
    ReadsGlobalRank,
    /// Creates the distributed process group. A `world_size` of 1 is a single process.
    ProcessGroup {
        backend: Param,
        device_id: Param,
        world_size: Param,
    },
    /// Creates a subgroup; with a CPU backend its collectives touch no GPU.
    Subgroup { backend: Param },
    /// A collective: runs on the current device unless one of `device` or a CPU subgroup is given,
    /// or, with `tensors`, a tensor on the worker's own GPU is passed (the communicator is made on
    /// the tensors' device).
    Collective {
        device: &'static [Param],
        group: Param,
        tensors: bool,
    },
    /// Returns the module or object named here (`torch.get_device_module()`).
    Returns(&'static str),
    /// An object of the library, named so that the rows under its name apply to it also where the
    /// library's own sources make it some other way (vLLM's `current_platform`, made by a module
    /// `__getattr__` from whichever platform plugin answers).
    Object,
    /// Answers this on the host every rule describes, a machine with NVIDIA GPUs and CUDA (vLLM's
    /// `current_platform.is_rocm()`): an `if` that tests the call alone runs only that branch.
    Answers(bool),
    /// A decorator that makes the function a task of a worker which imports the module and then
    /// forks the children that run its tasks (Celery's `@app.task`, prefork pool by default).
    ForkedTask,
    /// A decorator that makes the function a request handler of a web application: it runs in the
    /// server's workers, forked after the module's import where the server preloads the
    /// application (`Settings::preloading_server`).
    HandlesRequests,
    /// An engine that, when one of `parallel` is above 1, starts a worker process per GPU and then
    /// creates its own context (as `CREATES_OBJECT`). The workers start by the method the
    /// environment variable `method_env` names; else by fork, except that from version `spawns_since`
    /// of `package` the engine switches to spawn when the caller already initialised CUDA (a
    /// spawned worker re-imports the main module).
    ///
    /// From version `in_child_since` the engine itself runs in a child process, started the same
    /// way, unless `in_process_env` (key, value) is set: the caller then creates no context.
    ParallelEngine {
        parallel: &'static [Param],
        method_env: &'static str,
        package: &'static str,
        spawns_since: crate::requirements::Version,
        in_child_since: crate::requirements::Version,
        in_process_env: (&'static str, &'static str),
        /// An argument and value that run the engine and its one worker in this process, each
        /// rank started by an outside launcher: no child at all.
        in_process_arg: (Param, &'static str),
    },
    /// Creates processes.
    StartsChildren { api: ProcessApi, layer: Layer },
    /// A multiprocessing context for the start method `method` names.
    GetContext { layer: Layer, method: Param },
    /// Uses the default context of `layer`, which fixes its start method (unless `allow_none` is
    /// passed true); `creates_objects`: returns an object bound to that context (a lock, a queue);
    /// `makes`: that object carries values to other processes; `pythons`: the first and last
    /// target Python versions on which it does (`None`: on every one).
    FixesStartMethod {
        layer: Layer,
        allow_none: Option<Param>,
        creates_objects: bool,
        makes: Option<Carrier>,
        pythons: Option<(PythonVersion, PythonVersion)>,
    },
    /// Makes an object that carries values to other processes, without fixing a start method.
    MakesCarrier(Carrier),
    /// Blocks until some time passed or another process acted: what the process sent before may
    /// have been used by now.
    Waits,
    /// Sets the default start method of `layer`; `force` overrides one already fixed.
    SetStartMethod {
        layer: Layer,
        method: Param,
        force: Param,
    },
    /// Ends the process or replaces its program: nothing after it runs.
    EndsProcess,
    /// Runs the command `argv` holds (a list of words, or one string): a launcher's command
    /// (`LAUNCH_COMMANDS`) launches a job on as many machines as its options say.
    RunsCommand { argv: Param },
    /// A data loader whose workers are forked at each iteration. `one_thread`: each worker limits
    /// the intra-op thread pool to one thread before it runs anything. `collate_fn`: `None` where
    /// the loader uses a collation of its own whatever is passed.
    Loader {
        dataset: Param,
        num_workers: Param,
        collate_fn: Option<Param>,
        worker_init_fn: Param,
        context: Param,
        one_thread: bool,
    },
    /// A library dataset whose transforms (these keywords) run in the loader's workers.
    LibraryDataset { transforms: &'static [&'static str] },
    /// A dataset whose items index its arguments (tensors, or datasets of this kind): a loader's
    /// workers read each.
    IndexesArguments,
    /// A dataset whose `map`/`filter` with `num_proc` fork workers (`MethodRow`).
    ForkingDataset,
    /// `dict(a=1)`: a mapping of its keywords.
    DictOfKeywords,
    /// Binds leading arguments of a callable.
    Partial,
    /// Returns a callable whose call makes a call of the callable passed ready without running it
    /// (`joblib.delayed(f)(x)`: a partial of `f`), for workers to run (`WorkersRun::CallsItems`).
    Defers,
    /// A callable that calls each of `steps` in turn.
    Compose { steps: Param },
    /// Reads the environment variable `key` names.
    ReadsEnv { key: Param },
    /// Writes an environment variable: key and value.
    WritesEnv { key: Param, value: Param },
    /// Removes the environment variable `key` names.
    RemovesEnv { key: Param },
    /// The process environment, read and written by subscript.
    Environ,
    /// Converts to an int or a string, keeping a per-worker value per-worker.
    Converts { to_int: bool },
    /// Converts to a plain Python value (`float(t)`): a tensor's value is copied to the host.
    ToHost,
    /// Iterates its arguments (and with them a loader): each yields items of this shape.
    Iterates(Iteration),
    /// Calls the callable it is given with no arguments (command-line entry helpers).
    CallsArgument(Param),
    /// Looks at an object without iterating it, and returns a plain value.
    Inspects,
    /// A decorator that memoises the function's result: the result is a global.
    Memoises,
    /// A decorator that makes a generator a context manager: in `with f():`, the code before its
    /// `yield` runs on entering and the rest on leaving.
    EntersAtYield,
    /// A decorator that runs the function in a worker given its own GPUs when `param` is passed.
    NarrowsVisibility { param: &'static str },
    /// Forks worker processes that run the caller's code or the library's, as the row says
    /// (a method of an object a `Returns` row names: `spacy.language.Language().pipe`).
    ForksWorkers(&'static processes::launchers::ForkingCall),
    /// Returns an object `pickle` refuses (a lock, an open file, a connection): an instance that
    /// holds one cannot be sent to a child that must unpickle it.
    Unpicklable,
    /// Makes a thread that runs `target(*args)` (or the subclass's `run`) when started, in this
    /// process but on its own current CUDA device; pickle refuses it, as `Unpicklable`.
    StartsThread { target: Param, args: Param },
}

/// What iterating helpers return for their arguments' items.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Iteration {
    /// Each argument's items.
    Items,
    /// One item of its argument (`next(it)`).
    First,
    /// (index, item) pairs.
    Enumerate,
    /// Tuples of the arguments' items.
    Zip,
}

/// A library function or class, by qualified name.
#[derive(Debug)]
pub struct Row {
    pub name: &'static str,
    pub does: Behaviour,
    pub reason: &'static str,
}

/// Every name under `prefix` (ending in `suffix`; `class_leaf`: exactly one more dotted part, a
/// capitalised class name) behaves alike, except the names in `except`.
#[derive(Debug)]
pub struct PrefixRow {
    pub prefix: &'static str,
    pub suffix: &'static str,
    pub class_leaf: bool,
    pub except: &'static [&'static str],
    pub does: Behaviour,
    pub reason: &'static str,
}

/// The kinds of value a method or attribute row applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Receiver {
    /// Any value.
    Any,
    /// A value gpulint cannot see into (a project's own device abstraction, or a lazily filled
    /// global that still reads as its first `None`).
    Opaque,
    /// A CUDA tensor, model or array.
    CudaObject,
    /// A process object (`StartsChildren` with `ProcessApi::Process`), or an instance of a subclass.
    Process,
    /// A worker pool.
    Pool,
    /// A process pool executor.
    Executor,
    /// A `ForkingDataset`, or any value when the call passes `num_proc`.
    Dataset,
    /// What `BindsDeviceUnderLauncher { owner: true }` returned.
    DeviceOwner,
    /// A queue, a pipe's connection, or a manager's proxy (`Carrier`).
    Channel,
    /// A manager (`Carrier::Manager`).
    Manager,
    /// A thread object (`StartsThread`), or an instance of a subclass.
    Thread,
}

/// What a method does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MethodBehaviour {
    /// Selects the process's device.
    BindsDevice { device: Param },
    /// Starts the process.
    StartsProcess,
    /// Starts the thread: its code runs here, in this process.
    StartsThread,
    /// Runs a function in the pool's or executor's workers.
    RunsInWorkers(WorkerCall),
    /// Moves each argument to the owner's per-worker device.
    MovesArgumentsToDevice,
    /// Moves the receiver to CUDA (`device` names which; none: the current device). This,
    /// `MovesTo` and `MovesToCpu` move a module in place: as a statement (`model.cuda()`) they
    /// rebind the receiver.
    MovesToCuda { device: Param },
    /// Moves the receiver to the device `device` names.
    MovesTo { device: Param },
    /// Creates a CUDA context (returns an object on the current device).
    CreatesContext,
    /// Moves the process's CUDA state to `level` and returns no CUDA object.
    InitsCuda { level: Init },
    /// Copies the receiver into pinned host memory (`x.pin_memory()`), which the CUDA host
    /// allocator provides: it creates a context, and the copy is host memory that only CUDA can
    /// free.
    PinsHostMemory,
    /// Brings the value back to the CPU.
    ToCpu,
    /// Returns the receiver's tensors where they are (`model.state_dict()`): on the host for a
    /// module in host memory, on its GPU for a CUDA one.
    State,
    /// Copies a state into the receiver's tensors (`model.load_state_dict(sd)`), one `copy_` per
    /// parameter: on host parameters larger than the grain size, on the intra-op thread pool.
    LoadsState,
    /// Iterates the receiver's parameters where they live (`model.parameters()`): for a module in
    /// host memory, its largest weight is among them, so an operation applied to each
    /// (`[p.clone() for p in m.parameters()]`) runs on that one too.
    Parameters,
    /// Moves the receiver to the CPU: a module in place (`model.cpu()`), a tensor as a copy.
    MovesToCpu,
    /// Reads host-side metadata (`t.size()`, `t.numel()`): a plain value, not a tensor.
    Metadata,
    /// Runs `function` over the dataset, in `num_proc` forked workers when it is above 1.
    MapsDataset {
        function: Param,
        num_proc: Param,
        with_rank: Param,
    },
    /// Pickles its arguments to another process (`q.put(x)`, `conn.send(x)`, `proxy.append(x)`).
    Sends,
    /// Blocks until another process acts (`q.get()`, `conn.recv()`, `p.join()`, `event.wait()`).
    Waits,
    /// Makes a proxy of an object the manager process holds (`manager.dict()`, `manager.Queue()`).
    MakesProxy,
    /// Forks worker processes that run the caller's code, as the row says.
    ForksWorkers(&'static processes::launchers::ForkingCall),
}

#[derive(Debug)]
pub struct MethodRow {
    pub name: &'static str,
    pub on: Receiver,
    pub does: MethodBehaviour,
    pub reason: &'static str,
}

/// What reading an attribute gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttributeBehaviour {
    /// The device the receiver lives on, or is bound to.
    Device,
    /// Metadata, not a tensor: reading it does not use CUDA.
    Metadata,
    /// The process's rank across every node of the job.
    RankInJob,
    /// The process's rank on its node: an ordinal of this machine's GPUs.
    RankOnNode,
}

#[derive(Debug)]
pub struct AttributeRow {
    pub name: &'static str,
    pub on: Receiver,
    pub does: AttributeBehaviour,
    pub reason: &'static str,
}

/// What an environment variable means to the hazards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnvRole {
    /// Holds this process's rank on its node.
    Rank,
    /// Holds this process's rank across every node of the job.
    GlobalRank,
    /// Narrows the GPUs the process sees, when written before CUDA starts.
    NarrowsVisibility,
    /// Another runtime's GPU selection, set by the launcher: its text copied into the CUDA
    /// variable selects the same GPUs again.
    LauncherVisibility,
    /// The address where the ranks of a job meet: on the loopback (`LOOPBACK_HOSTS`), every rank
    /// runs on this machine.
    RendezvousHost,
    /// Changes what a library call does (`InitsCuda::unless_env`).
    ChangesCalls,
}

/// A global rank's counterpart on one node (see `torch::LOCAL_RANKS`).
#[derive(Debug)]
pub struct LocalRank {
    /// The environment variable, or the call, that gives the rank across the job.
    pub global: &'static str,
    /// The environment variable the same launcher sets to the rank on this node.
    pub local: &'static str,
    pub reason: &'static str,
}

#[derive(Debug)]
pub struct EnvRow {
    pub name: &'static str,
    pub role: EnvRole,
    pub reason: &'static str,
}

/// A module whose import (or the import of anything in it) moves the CUDA state, or writes an
/// environment variable (`sets_env`: key and value).
#[derive(Debug)]
pub struct ImportRow {
    pub module: &'static str,
    pub init: Init,
    pub sets_env: Option<(&'static str, &'static str)>,
    /// The version of the package from which the import sets it; where the project pins an older
    /// one, it does not. Unknown versions are taken to set it (the finding it prevents is kept
    /// for the projects that say).
    pub sets_env_since: Option<crate::requirements::Version>,
    /// The releases whose import has `init`, where only some do: from the first (inclusive)
    /// up to the second (exclusive; `None` while it still does). Only a project that pins a
    /// version in the range gets the effect; an unknown version reports less.
    pub init_in: Option<(
        crate::requirements::Version,
        Option<crate::requirements::Version>,
    )>,
    /// With this variable set to this value the import leaves CUDA alone (its CUDA work is
    /// `torch.cuda.is_available()`, which then counts through NVML).
    pub init_unless_env: Option<(&'static str, &'static str)>,
    pub reason: &'static str,
}

const TABLES: &[&[Row]] = &[
    torch::ROWS,
    processes::ROWS,
    gpu_arrays::ROWS,
    frameworks::ROWS,
    inference::ROWS,
    huggingface::ROWS,
    python::ROWS,
];
const PREFIX_TABLES: &[&[PrefixRow]] = &[
    torch::PREFIXES,
    gpu_arrays::PREFIXES,
    frameworks::PREFIXES,
    huggingface::PREFIXES,
];

/// Every row of every table, for tests and listings.
pub fn rows() -> impl Iterator<Item = &'static Row> {
    TABLES.iter().flat_map(|t| t.iter())
}

/// Every prefix row.
pub fn prefix_rows() -> impl Iterator<Item = &'static PrefixRow> {
    PREFIX_TABLES.iter().flat_map(|t| t.iter())
}

/// Every method row, in lookup order.
pub fn method_rows() -> impl Iterator<Item = &'static MethodRow> {
    [
        torch::METHODS,
        processes::METHODS,
        gpu_arrays::METHODS,
        frameworks::METHODS,
        huggingface::METHODS,
    ]
    .into_iter()
    .flat_map(|t| t.iter())
}

/// Every attribute row.
pub fn attribute_rows() -> impl Iterator<Item = &'static AttributeRow> {
    [torch::ATTRIBUTES, huggingface::ATTRIBUTES]
        .into_iter()
        .flat_map(|t| t.iter())
}

/// The rows by name, built once.
fn index() -> &'static FxHashMap<&'static str, &'static Row> {
    static INDEX: OnceLock<FxHashMap<&'static str, &'static Row>> = OnceLock::new();
    INDEX.get_or_init(|| rows().map(|r| (r.name, r)).collect())
}

/// Whether some row names a call of the package `top` (`horovod`, `numba`): a project folder of
/// that name is the library itself, checked from its own sources.
pub fn names_package(top: &str) -> bool {
    static TOPS: OnceLock<rustc_hash::FxHashSet<&'static str>> = OnceLock::new();
    TOPS.get_or_init(|| rows().map(|r| first_name(r.name)).collect())
        .contains(top)
}

/// The canonical spelling of a qualified name: its alias row's target, else itself.
pub fn canonical(name: &str) -> &str {
    match index().get(name) {
        Some(Row {
            does: Behaviour::Alias(to),
            ..
        }) => to,
        _ => name,
    }
}

/// What the library call `name` does, and why: its row (through an alias), else the first prefix
/// row that covers it.
pub fn lookup(name: &str) -> Option<(Behaviour, &'static str)> {
    lookup_canonical(canonical(name))
}

/// [`lookup`] for a name already in its [`canonical`] spelling.
pub fn lookup_canonical(name: &str) -> Option<(Behaviour, &'static str)> {
    if let Some(row) = index().get(name) {
        return Some((row.does, row.reason));
    }
    prefix_index()
        .get(first_name(name))?
        .iter()
        .find(|r| {
            name.strip_prefix(r.prefix).is_some_and(|rest| {
                rest.ends_with(r.suffix)
                    && (!r.class_leaf
                        || !rest.contains('.')
                            && rest.starts_with(|c: char| c.is_ascii_uppercase()))
            }) && !r.except.contains(&name)
        })
        .map(|r| (r.does, r.reason))
}

/// The prefix rows by the first name of their prefix (`torch` for `torch.cuda.`), each name's in
/// lookup order, built once: most names looked up have no row, and comparing each with every
/// prefix was 2% of a run on transformers. Every prefix ends with a dot (a unit test holds it), so
/// a name a row covers has the same first name.
fn prefix_index() -> &'static FxHashMap<&'static str, Vec<&'static PrefixRow>> {
    static INDEX: OnceLock<FxHashMap<&'static str, Vec<&'static PrefixRow>>> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut index: FxHashMap<&'static str, Vec<&'static PrefixRow>> = FxHashMap::default();
        for row in prefix_rows() {
            index.entry(first_name(row.prefix)).or_default().push(row);
        }
        index
    })
}

/// `torch` for `torch.cuda.` and for `torch.cuda.init`.
pub fn first_name(dotted: &str) -> &str {
    dotted.split('.').next().unwrap_or(dotted)
}

/// The method rows by name, each name's in lookup order, built once: a method call looks up only
/// the rows of its name.
fn method_index() -> &'static FxHashMap<&'static str, Vec<&'static MethodRow>> {
    static INDEX: OnceLock<FxHashMap<&'static str, Vec<&'static MethodRow>>> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut index: FxHashMap<&'static str, Vec<&'static MethodRow>> = FxHashMap::default();
        for row in method_rows() {
            index.entry(row.name).or_default().push(row);
        }
        index
    })
}

/// The first method row named `name` that `matches` the call (its receiver kind and behaviour).
pub fn method(
    name: &str,
    matches: impl Fn(Receiver, MethodBehaviour) -> bool,
) -> Option<MethodBehaviour> {
    method_index()
        .get(name)?
        .iter()
        .find(|r| matches(r.on, r.does))
        .map(|r| r.does)
}

/// What reading attribute `name` of a receiver of kind `on` gives.
pub fn attribute(name: &str, on: Receiver) -> Option<AttributeBehaviour> {
    attribute_rows()
        .find(|r| r.name == name && r.on == on)
        .map(|r| r.does)
}

/// Whether the CUDA objects a library call of `name` returns travel to other processes as CUDA IPC
/// handles (PyTorch's tensors and modules) rather than as host copies (CuPy, JAX) or not at all
/// (ONNX Runtime sessions, CTranslate2 models).
pub fn sent_by_handle(name: &str) -> bool {
    let package = name.split('.').next().unwrap_or(name);
    torch::SENT_BY_HANDLE.contains(&package)
}

/// What the environment variable `name` means.
pub fn env_role(name: &str) -> Option<EnvRole> {
    torch::ENV.iter().find(|r| r.name == name).map(|r| r.role)
}

/// The variable that holds the rank on this node where `global` (a variable or a call) gives
/// the rank across the job.
pub fn local_rank_of(global: &str) -> Option<&'static str> {
    torch::LOCAL_RANKS
        .iter()
        .find(|r| r.global == global)
        .map(|r| r.local)
}

/// Every environment variable with a role.
pub fn env_rows() -> &'static [EnvRow] {
    torch::ENV
}

/// Every import row.
pub fn import_rows() -> impl Iterator<Item = &'static ImportRow> {
    [gpu_arrays::IMPORTS, huggingface::IMPORTS]
        .into_iter()
        .flat_map(|t| t.iter())
}

/// What importing `module` does: the row of the module or of a package it is in (importing
/// `a.b.c` runs `a` and `a.b` first).
pub fn import_effect(module: &str) -> Option<&'static ImportRow> {
    import_rows().find(|row| {
        module
            .strip_prefix(row.module)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
    })
}

/// The `ProcessApi::Process` layer a class inherits from, through its library bases.
/// Whether `base` is a thread class (`threading.Thread`): a subclass's `run` runs at `.start()`.
pub fn is_thread_class(base: &str) -> bool {
    matches!(lookup(base), Some((Behaviour::StartsThread { .. }, _)))
}

pub fn process_class_layer(base: &str) -> Option<Layer> {
    match lookup(base)?.0 {
        Behaviour::StartsChildren {
            api: ProcessApi::Process { .. },
            layer,
        } => Some(layer),
        _ => None,
    }
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
    "flair",
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
    "mxnet",
    "gluonts",
    "triton",
    "onnxruntime",
    "ctranslate2",
    "faster_whisper",
    "whisper",
    "cudf",
    "cuml",
    "cucim",
    "tensorrt",
    "thinc",
    "spacy",
];

/// A GPU package that computes on the CPU unless told to use the GPU, and the words a module that
/// tells it to holds: a module that imports it but holds none of them cannot reach CUDA through
/// it, and is not interpreted for it.
pub struct CpuFirst {
    pub package: &'static str,
    pub words: &'static [&'static str],
    pub reason: &'static str,
}

pub const CPU_FIRST: &[CpuFirst] = &[
    CpuFirst {
        package: "numba",
        words: &["cuda"],
        reason: "numba compiles for the CPU; its GPU target is the `numba.cuda` module (`from numba import cuda`, `numba.cuda.jit`)",
    },
    CpuFirst {
        package: "spacy",
        words: &["gpu"],
        reason: "spaCy runs on the CPU unless `prefer_gpu`/`require_gpu` (or thinc's `set_active_gpu`) switches it",
    },
    CpuFirst {
        package: "thinc",
        words: &["gpu"],
        reason: "thinc's ops are NumPy's unless `prefer_gpu`/`require_gpu`/`set_active_gpu` switches them to CuPy",
    },
    CpuFirst {
        package: "mxnet",
        words: &["gpu"],
        reason: "MXNet's default context is the CPU; GPU contexts are named `mx.gpu(...)` (or `Context('gpu', ...)`)",
    },
];

/// A call that moves the CUDA state to `level` and returns nothing CUDA-resident.
pub const fn inits(level: Init) -> Behaviour {
    Behaviour::InitsCuda {
        level,
        object: false,
        safe_in_child: false,
        unless_env: None,
    }
}

/// A call that creates a context and returns an object (an array, a handle) living in it.
pub const CREATES_OBJECT: Behaviour = Behaviour::InitsCuda {
    level: Init::Context,
    object: true,
    safe_in_child: false,
    unless_env: None,
};
