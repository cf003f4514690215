//! Effects: what a frontend saw happen, in program order, in one simulated process. Effects name
//! neither a library nor a rule; the frontend's library tables decide which calls produce them.

use std::sync::Arc;

use crate::source::{FileId, Span};

/// How far the process's CUDA state has moved (see HAZARDS.md, "The state the analysis tracks").
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Init {
    /// Touches no CUDA state (or is queued until initialisation).
    None,
    /// `cuInit` runs: a forked child can no longer use CUDA.
    Driver,
    /// A context exists on some device.
    Context,
}

/// How a child process starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartMethod {
    Fork,
    Spawn,
    Forkserver,
}

impl StartMethod {
    pub fn parse(name: &str) -> Option<StartMethod> {
        match name {
            "fork" => Some(StartMethod::Fork),
            "spawn" => Some(StartMethod::Spawn),
            "forkserver" => Some(StartMethod::Forkserver),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            StartMethod::Fork => "fork",
            StartMethod::Spawn => "spawn",
            StartMethod::Forkserver => "forkserver",
        }
    }
}

/// Where a process's CUDA state first left "clean".
#[derive(Clone, Debug, PartialEq)]
pub struct CudaInitSite {
    pub span: Span,
    pub level: Init,
    /// What happened there, e.g. "`model.cuda()` creates a CUDA context". Shared: process states
    /// holding it are copied at every branch.
    pub what: Arc<str>,
}

/// A place where code touches CUDA.
#[derive(Clone, Debug, PartialEq)]
pub struct CudaUse {
    pub span: Span,
    pub what: Arc<str>,
}

/// Which CUDA device a device value or object names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceIndex {
    /// A constant ordinal (`"cuda:0"`, `torch.device("cuda", 0)`, `.cuda(1)`).
    Fixed(i64),
    /// No ordinal: the process's current device (`"cuda"`, `.cuda()`).
    Current,
    /// An ordinal computed per worker (`f"cuda:{rank}"`, `.to(local_rank)`).
    PerWorker,
    /// A device taken from elsewhere, not chosen here: where an existing object lives
    /// (`t.device`, `model.device`), or a device kind (`mesh.device_type`). Which GPU is not known.
    Inherited,
}

/// A tensor, model or array known to live on a CUDA device.
#[derive(Clone, Debug, PartialEq)]
pub struct CudaObject {
    /// Where it was created or moved to CUDA.
    pub site: Span,
    pub index: DeviceIndex,
    /// Placed on a device that does not depend on the worker: a constant ordinal, or the current
    /// device before the process bound one.
    pub pinned: bool,
    /// The simulated process that created it.
    pub process: u32,
    /// The global binding it was stored under (module variable, `global` name, class attribute,
    /// memoised result): its name and the assignment.
    pub global: Option<(Arc<str>, Span)>,
    /// Sent to another process, it travels as a CUDA IPC handle to this memory (PyTorch's tensors
    /// and modules), not as a host copy: the receiver maps the sender's memory, which must stay
    /// alive until the receiver is done.
    pub by_handle: bool,
}

impl CudaObject {
    /// A value computed from this one (a slice, an operation's result, an attribute): on the same
    /// device, held by no global binding.
    pub fn derived(&self) -> CudaObject {
        CudaObject {
            global: None,
            ..self.clone()
        }
    }
}

/// What starts a child process, as the frontend's row for it describes it: how messages name it,
/// how it is moved to spawn, and what its children are to the analyses. Core names no library;
/// each launcher is a constant of the frontend's tables (`python/src/libraries/processes/`), and
/// adding one is a row there.
#[derive(Debug, PartialEq, Eq)]
pub struct Launcher {
    /// The subject of "... starts a child process" ("This pool").
    pub subject: &'static str,
    /// The label at the fork point where the finding's line is not the call that forks (a task,
    /// a request handler, a server hook); `None`: "the child process is forked here".
    pub label: Option<&'static str>,
    /// How to start its children by spawn instead, or to keep CUDA out of the fork (the first
    /// clause of the help).
    pub spawn_help: &'static str,
    /// The edit that asks for spawn, where one call says it.
    pub spawn_fix: SpawnFix,
    /// Its child runs the code it is handed and then ends (a `Process`, a launcher's ranks), so
    /// the child's use of what it was sent is over when it exits; a pool's workers live on.
    pub ends_with_code: bool,
    /// Whether its children are one per GPU.
    pub per_gpu: PerGpu,
    /// Its workers read data for the parent (a loader's or a dataset's workers): they get no GPU
    /// of their own.
    pub data_workers: bool,
    /// Under fork, the child inherits the objects it is handed (a `Process`'s target and
    /// arguments, a loader's dataset) rather than receiving pickled copies.
    pub inherits_handed: bool,
}

/// The edit that makes a launcher start its children by spawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpawnFix {
    /// No single call says it.
    None,
    /// Add this keyword argument to the call that forks (`multiprocessing_context="spawn"`).
    Keyword(&'static str),
    /// Add this keyword, set to the spawn context of the package's `get_context`, to the call
    /// that made the launcher (`mp_context`).
    ContextKeyword(&'static str),
    /// Make the launcher from the spawn context instead of the package's default one
    /// (`get_context("spawn").Pool`).
    FromContext,
}

/// Whether a launcher's children each run on a GPU of their own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PerGpu {
    /// Each child is a rank (a launcher of ranks).
    Always,
    /// When started several alike (in a loop or a comprehension): one per GPU.
    WhenRepeated,
    /// Never (a pool's workers, a loader's).
    Never,
}

/// How many machines a job's processes run on, as the launch that started them says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Nodes {
    /// One machine: the global rank of each process is its rank on that machine.
    One,
    /// Possibly several machines (a launcher told to use more than one node).
    Several,
}

/// How a value travels to another process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Channel {
    /// A queue or a pipe: pickled here, rebuilt by the process that receives it.
    Queue,
    /// A proxy of an object a manager process holds (its queue, dict, list): the manager receives
    /// the value and pickles it again for whoever reads it.
    ManagerProxy,
}

/// A start method set on a process-creating layer that a fork point does not obey: the fork point
/// belongs to another layer, whose own default is in force, or is a raw fork.
#[derive(Clone, Debug, PartialEq)]
pub struct OtherLayerStart {
    /// The `set_start_method` call.
    pub span: Span,
    pub method: StartMethod,
    /// The package whose default it sets, for messages (`multiprocessing`).
    pub set_on: Arc<str>,
    /// The package that creates the child, for messages; `None` for a raw fork.
    pub forks_through: Option<Arc<str>>,
}

/// A process group's communication backend, as far as the device binding matters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// NCCL: one GPU per rank.
    Nccl,
    /// No backend given: NCCL when CUDA is in use.
    Default,
    /// A CPU backend (gloo, mpi): no device to bind.
    Cpu,
    /// Not known: the call passes on a `**kwargs` gpulint cannot see into, which may name any
    /// backend. Not known to be NCCL, so nothing to report.
    Unknown,
}

/// What a write of the GPU visibility variable does to the selection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VisibilityWrite {
    /// A selection the program chose: a device list, a rank, a value gpulint cannot tell.
    Selects,
    /// The empty list: no GPU at all (a guard that makes any initialisation in a block fail).
    HidesAll,
    /// A selection the process was launched with, read back from the environment: a saved value
    /// restored, or another runtime's visibility variable copied. It selects nothing new.
    Copied,
}

/// How a process bound its device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binding {
    /// A call that selects the current device (`set_device`, a device abstraction, a launcher's
    /// state object).
    Call,
    /// Visibility narrowed to the worker's GPUs before CUDA started (an environment write, a
    /// scheduler that gives each worker its own GPUs).
    Narrowed,
}

/// A process, pool or executor made on a package's default context (`mp.Pool(4)`), whose own
/// call could ask for another start method instead.
#[derive(Clone, Debug, PartialEq)]
pub struct DefaultContextCall {
    /// The call that made it.
    pub call: Span,
    /// What that call calls, as written (`mp.Pool`).
    pub callee: Span,
    /// How the calling module names the same package's `get_context` (`mp.get_context`), when
    /// it has a name for it that the call's place sees.
    pub get_context: Option<Arc<str>>,
}

/// Where code could read the rank on this node: the environment variable the launcher sets, and
/// how the module names the environment (`os.environ`).
#[derive(Clone, Debug, PartialEq)]
pub struct LocalRankRead {
    pub variable: Arc<str>,
    pub environ: Arc<str>,
}

/// A child process as the process that runs it first sees itself.
#[derive(Clone, Debug, PartialEq)]
pub struct ChildStart {
    /// Where the child is created: the fork point.
    pub span: Span,
    pub launcher: &'static Launcher,
    pub start_method: StartMethod,
    /// What chose that start method (`None`: the platform default).
    pub start_method_source: Option<Span>,
    /// The CUDA state the child starts with from its parent (a forked child's inheritance, or a
    /// fork server that imported the main module).
    pub parent_init: Option<CudaInitSite>,
    /// What the child runs, for messages ("`embed`"); `None` for a child seen before at this site.
    pub code: Option<Arc<str>>,
    /// The fork point is in the module's top-level code, not in a function.
    pub at_module_scope: bool,
    /// The parent was itself a spawned child re-importing the main module when it got here (an
    /// unguarded process creation, run again in every child).
    pub during_reimport: bool,
    /// A `set_start_method` of another layer in force in the parent, which this child's start
    /// does not obey (its own layer's method is the default, or it is a raw fork).
    pub other_layer_start: Option<OtherLayerStart>,
    /// The start method is the default only because nothing set one in the function that was
    /// analysed as an entry point: a caller may have set one first.
    pub default_in_entry: Option<EntryCallers>,
    /// The call that made the process, pool or executor on a package's default context.
    pub made_by: Option<DefaultContextCall>,
    /// The fork point runs in a loop or a comprehension of the parent: one of several children
    /// started alike (a `Process` per GPU), not one child.
    pub repeated: bool,
}

/// Whether the project calls a function analysed as an entry point of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryCallers {
    /// It has callers: their analyses follow the call with the start method they set.
    InProject,
    /// None (a library's API, a script's entry): any caller may have set one.
    Unknown,
}

/// A module-level binding: the module (by file) and its name. `setting`: not a binding but a
/// library's process-wide setting (a default dtype), which lives in the interpreter as a global
/// does and which a fresh interpreter starts without alike.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GlobalName {
    pub module: FileId,
    pub name: Arc<str>,
    pub setting: bool,
}

/// What a child process is handed, which its start method may serialise to send it there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handed {
    /// The function a process runs (`target`, the function a launcher starts in each process).
    Target,
    /// A process object itself (an instance of a process subclass), sent to the child it starts.
    ProcessObject,
    /// A function sent with each task to a pool's or executor's workers: serialised under every
    /// start method, fork included, since tasks travel through a pipe.
    Task,
    /// A pool's initializer.
    Initializer,
    /// A data loader's dataset.
    Dataset,
    /// A data loader's batch collation function.
    CollateFn,
    /// A data loader's per-worker initialisation function.
    WorkerInitFn,
}

/// Why the serialiser a child's start uses (Python's `pickle`, which saves functions and classes by
/// their importable name and objects by their state) cannot send a value.
#[derive(Clone, Debug, PartialEq)]
pub enum Unserializable {
    /// An anonymous function (a lambda): it has no name to be looked up by.
    Anonymous,
    /// A function defined inside another function: its name is not reachable from its module.
    LocalFunction,
    /// An instance, method or the class itself of a class defined inside a function.
    LocalClass,
    /// Defined only when the module runs as the main program (under `if __name__ == "__main__":`):
    /// a child that imports the main module afresh does not define it. Fails only where the child
    /// imports the module itself (spawn, forkserver).
    MainOnly,
    /// Defined by an interactive `__main__` (a notebook's kernel), which a child started by spawn
    /// or forkserver never imports: it cannot look the name up. A forked child has it.
    InteractiveMain,
    /// Something held by the value sent (attribute `attr` of an instance) that cannot be
    /// serialised: `what` says what. `resource`: an object refused whatever its name (a lock, an
    /// open file, a pool); otherwise one of the kinds above.
    Holds {
        attr: Arc<str>,
        what: Arc<str>,
        resource: bool,
    },
}

/// A value a child is handed that its serialiser cannot send.
#[derive(Clone, Debug, PartialEq)]
pub struct UnserializableSent {
    /// Where it is handed over: the argument.
    pub span: Span,
    pub handed: Handed,
    /// How messages name it ("a lambda", "`collate`", "`Job.run`").
    pub name: Arc<str>,
    pub why: Unserializable,
    /// Where the thing that cannot be sent was defined or created, when known.
    pub origin: Option<Span>,
    pub start_method: StartMethod,
    /// What chose that start method (`None`: the platform default).
    pub start_method_source: Option<Span>,
}

/// What happened, in program order, in one simulated process.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// The CUDA driver was initialised, or a context created, here (`site.level`). `fails_in_child`:
    /// doing this in a forked child of an initialised parent fails.
    CudaInit {
        site: CudaInitSite,
        fails_in_child: bool,
    },
    /// A CUDA object was created, or moved to a device, here.
    CudaObjectCreated { object: CudaObject, what: Arc<str> },
    /// A CUDA object was used here; `through_global`: read through a module-level binding.
    CudaUsed {
        object: CudaObject,
        span: Span,
        what: Arc<str>,
        through_global: bool,
    },
    /// The process bound its device here; `chooses`: to a device of its own (a per-worker index).
    DeviceBound {
        span: Span,
        binding: Binding,
        chooses: bool,
    },
    /// A distributed process group was created here. `device_given`: the call itself names the
    /// rank's device.
    ProcessGroupCreated {
        span: Span,
        backend: Backend,
        device_given: bool,
    },
    /// A collective ran here; `explicit_device`: on a device or group the call names.
    CollectiveRun {
        span: Span,
        name: Arc<str>,
        explicit_device: bool,
    },
    /// This process starts as a child: the first effect of every child process.
    ChildStarted(ChildStart),
    /// The child calls this code next (a pool's function, a dataset's `__getitem__`).
    ChildRuns { code: Arc<str> },
    /// The start method of a process-creating layer was set here. `force`: the call passes
    /// `force=True`; `during_reimport`: a spawned child re-importing the main module runs it again
    /// (where the context is already fixed); `caught`: it runs inside a `try` with handlers;
    /// `only_if_unset`: it runs under `if get_start_method(allow_none=True) is None:`, so never
    /// where the context is already fixed.
    StartMethodSet {
        span: Span,
        /// Which default context (an opaque key: each multiprocessing package has its own).
        context: u32,
        method: StartMethod,
        /// The method in force before it (set earlier, inherited, or the platform default).
        previous: StartMethod,
        at_module_scope: bool,
        force: bool,
        during_reimport: bool,
        caught: bool,
        only_if_unset: bool,
        /// The call runs in a loop or a comprehension of this process (or of a caller): it runs
        /// again on the next pass, after it fixed the method itself.
        repeated: bool,
    },
    /// The default context's start method was fixed here (`get_start_method()`, a lock or queue
    /// made with it); `creates_objects`: objects tied to that start method exist from here on.
    StartMethodFixed {
        span: Span,
        context: u32,
        what: Arc<str>,
        creates_objects: bool,
    },
    /// A device index taken from the global rank (`RANK`, `get_rank()`) names the device here:
    /// past the first node it is not an ordinal of this machine. `local`: where this module could
    /// read the rank on the node instead, when it can.
    DeviceFromGlobalRank {
        span: Span,
        local: Option<LocalRankRead>,
    },
    /// The job this process belongs to is launched here, by this process (a launcher command it
    /// runs, a rendezvous address it sets) or by an ancestor (reported again at the child's
    /// start), on `nodes` machines.
    Launched { span: Span, nodes: Nodes },
    /// A function asked for a device by its parameter `ordinal` returns a CUDA object that a
    /// global initialised once (a lazy cell) holds: every call gets the first initialisation's
    /// device, whatever it asks for. `span`: the function; `global`: the global's name and
    /// declaration.
    CachedDeviceReturned {
        span: Span,
        global: (Arc<str>, Span),
        ordinal: Span,
    },
    /// A checkpoint load that restores tensors to the devices they were saved from (no
    /// `map_location`): usually cuda:0, whatever device this process uses.
    /// `file`: how the code names the file it reads (a string, or the variable that holds its
    /// path), when it names it plainly. `none_given`: the `None` the call passes as the mapping,
    /// if it passes one.
    UnmappedLoad {
        span: Span,
        what: Arc<str>,
        file: Option<Arc<str>>,
        none_given: Option<Span>,
    },
    /// A checkpoint was saved here to the file named `file` (as in `UnmappedLoad`); `host_only`:
    /// what was saved is known to hold no CUDA tensor (host tensors, numbers, strings, lists of
    /// them), so loading it restores nothing onto a GPU.
    CheckpointSaved {
        span: Span,
        file: Arc<str>,
        host_only: bool,
    },
    /// A CUDA object was handed to another process here (`q.put(t)`, `conn.send(t)`, a manager
    /// proxy's `d[k] = t`); `what`: the call that sends it, for messages.
    CudaObjectSent {
        object: CudaObject,
        span: Span,
        channel: Channel,
        what: Arc<str>,
    },
    /// A call of the program's own function was not analysed (a budget ran out): whatever it does
    /// is unknown, so a verdict that rests on something not having happened (the device never
    /// bound) cannot be taken after it. `function`: the function's definition.
    NotFollowed { function: Span },
    /// The process waited here for other processes (received from a queue, joined a process,
    /// waited on an event): what it sent before may have been used by now.
    WaitedForOthers { span: Span },
    /// An environment variable was written here; `visibility`: it is the variable that selects
    /// the GPUs the process sees (which the driver reads once, at initialisation), and what the
    /// value written does to that selection.
    EnvWritten {
        span: Span,
        key: Arc<str>,
        value: Option<Arc<str>>,
        visibility: Option<VisibilityWrite>,
    },
    /// A value a child is handed (its target, a pool's task, a loader's dataset...) that the
    /// serialiser of its start cannot send. Reported at the handover, in the parent.
    UnserializableSent(UnserializableSent),
    /// A forked child holds a CUDA object or pinned host memory it inherited through what it was
    /// handed (an attribute of its dataset, a variable of a closure, an argument): it frees it when
    /// it exits. `span`: where that object was made; `what`: what it is and where the child holds it.
    CudaHeld { span: Span, what: Arc<str> },
    /// An operation on host tensors that the library may run on its intra-op thread pool (OpenMP):
    /// the pool's threads exist from here on, in this process only.
    HostCompute { span: Span, what: Arc<str> },
    /// The process limited that intra-op pool to one thread (`torch.set_num_threads(1)`, a data
    /// loader worker's start): its operations start no pool.
    HostThreadsLimited { span: Span },
    /// A module global was bound at run time: by a function (through `global`) or by the main
    /// program's guarded block, never while a module is imported, so a fresh interpreter that
    /// imports the module does not repeat it. `in_place`: the object it holds was changed
    /// (an item or attribute set, a container's mutating method).
    GlobalWritten {
        span: Span,
        global: GlobalName,
        in_place: bool,
    },
    /// A thread of this process starts here and runs the code whose effects follow, up to its
    /// `ThreadEnded`. It shares the process (its memory, CUDA's initialisation, the environment)
    /// but not its current CUDA device, which is per thread and starts unbound (device 0).
    ThreadStarted { span: Span },
    /// The thread started at `span` ends: what follows runs in the thread that started it.
    ThreadEnded { span: Span },
    /// CUDA work here runs on the calling thread's current device, the call naming none
    /// (`synchronize()`, `empty_cache()`, the current stream, pinning host memory).
    CurrentDeviceUsed { span: Span, what: Arc<str> },
    /// A module global was read by a child that imported the program afresh (spawn, forkserver),
    /// after its start. `defined`: the child's own import bound it; `owner`: the reading function
    /// writes it too (a cache or lazy value it fills itself). Reported only in such children.
    GlobalRead {
        span: Span,
        global: GlobalName,
        defined: bool,
        owner: bool,
    },
}
