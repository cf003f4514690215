//! Process creation: which APIs fork, which spawn, and how the start method is chosen.

/// The package whose start-method setting a fork point obeys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layer {
    /// `multiprocessing` and `torch.multiprocessing` share one default context.
    Multiprocessing,
    /// The `multiprocess` fork of it, used by Hugging Face `datasets`.
    Multiprocess,
}

pub use gpulint_core::effect::StartMethod;

/// What kind of process-creating API a call is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProcessApi {
    /// `Process(target=...)`: forks at `.start()`.
    Process,
    /// `Pool(...)`: forks its workers at construction.
    Pool,
    /// `ProcessPoolExecutor(...)`: forks its workers at the first `submit`/`map`.
    Executor,
    /// `os.fork()`.
    OsFork,
    /// `torch.multiprocessing.spawn(fn, ...)`: always spawn.
    TorchSpawn,
    /// `torch.multiprocessing.start_processes(fn, ..., start_method=...)`, spawn by default.
    StartProcesses,
    /// A `with` block whose body runs in a forked daemon.
    DaemonContext,
}

#[derive(Debug)]
pub struct ProcessRow {
    pub name: &'static str,
    pub api: ProcessApi,
    pub layer: Layer,
    pub reason: &'static str,
}

pub const PROCESS_APIS: &[ProcessRow] = &[
    ProcessRow {
        name: "multiprocessing.Process",
        api: ProcessApi::Process,
        layer: Layer::Multiprocessing,
        reason: "forks at `.start()` under the default context",
    },
    ProcessRow {
        name: "multiprocessing.Pool",
        api: ProcessApi::Pool,
        layer: Layer::Multiprocessing,
        reason: "forks every worker at construction, and again to replace one",
    },
    ProcessRow {
        name: "concurrent.futures.ProcessPoolExecutor",
        api: ProcessApi::Executor,
        layer: Layer::Multiprocessing,
        reason: "forks its workers at the first submit unless `mp_context=` says otherwise",
    },
    ProcessRow {
        name: "multiprocess.Process",
        api: ProcessApi::Process,
        layer: Layer::Multiprocess,
        reason: "the `multiprocess` package's Process",
    },
    ProcessRow {
        name: "multiprocess.Pool",
        api: ProcessApi::Pool,
        layer: Layer::Multiprocess,
        reason: "the `multiprocess` package's Pool",
    },
    ProcessRow {
        name: "os.fork",
        api: ProcessApi::OsFork,
        layer: Layer::Multiprocessing,
        reason: "a raw fork: no hook runs in the child",
    },
    ProcessRow {
        name: "os.forkpty",
        api: ProcessApi::OsFork,
        layer: Layer::Multiprocessing,
        reason: "a raw fork with a terminal",
    },
    ProcessRow {
        name: "torch.multiprocessing.spawn",
        api: ProcessApi::TorchSpawn,
        layer: Layer::Multiprocessing,
        reason: "always starts children by spawn",
    },
    ProcessRow {
        name: "torch.multiprocessing.start_processes",
        api: ProcessApi::StartProcesses,
        layer: Layer::Multiprocessing,
        reason: "uses its `start_method` argument, spawn by default",
    },
    ProcessRow {
        name: "daemon.DaemonContext",
        api: ProcessApi::DaemonContext,
        layer: Layer::Multiprocessing,
        reason: "python-daemon forks when the context is entered",
    },
];

pub fn process_api(name: &str) -> Option<&'static ProcessRow> {
    PROCESS_APIS.iter().find(|row| row.name == name)
}

/// `get_context(...)` for each layer.
pub const GET_CONTEXT: &[(&str, Layer)] = &[
    ("multiprocessing.get_context", Layer::Multiprocessing),
    ("multiprocess.get_context", Layer::Multiprocess),
];

/// `set_start_method(...)` for each layer.
pub const SET_START_METHOD: &[(&str, Layer)] = &[
    ("multiprocessing.set_start_method", Layer::Multiprocessing),
    ("multiprocess.set_start_method", Layer::Multiprocess),
];

/// Methods of a pool or executor that run a function in the workers: (method, index of the function).
pub const POOL_METHODS: &[&str] = &[
    "map",
    "map_async",
    "imap",
    "imap_unordered",
    "starmap",
    "starmap_async",
    "apply",
    "apply_async",
    "submit",
];

/// Calls that end the process or replace its program: code after them in a forked child is not run.
pub const EXITS: &[&str] = &["sys.exit", "os._exit", "exit", "quit"];
pub const EXECS: &[&str] = &[
    "os.execv",
    "os.execve",
    "os.execl",
    "os.execle",
    "os.execlp",
    "os.execlpe",
    "os.execvp",
    "os.execvpe",
];

/// Decorators that run a function in a fresh worker (no fork), and whose `num_gpus` narrows visibility.
pub const RAY_REMOTE: &str = "ray.remote";
