//! Where processes run: the commands that launch a distributed job and how many machines they
//! span, test suites (one machine), this machine's host names, and the hooks a server calls in its
//! master before it forks the workers.

/// A command that launches a distributed job: its program (or `-m` module), the option that
/// says on how many machines (one when absent), and options that keep it on one.
#[derive(Debug)]
pub struct LaunchCommand {
    pub program: &'static str,
    pub nodes: &'static str,
    pub one_node: &'static [&'static str],
    pub reason: &'static str,
}

pub const LAUNCH_COMMANDS: &[LaunchCommand] = &[
    LaunchCommand {
        program: "torchrun",
        nodes: "--nnodes",
        one_node: &["--standalone"],
        reason: "torchrun runs on one node unless `--nnodes` says more (its default is `1:1`)",
    },
    LaunchCommand {
        program: "torch.distributed.run",
        nodes: "--nnodes",
        one_node: &["--standalone"],
        reason: "the module behind torchrun (`python -m torch.distributed.run`)",
    },
    LaunchCommand {
        program: "torch.distributed.launch",
        nodes: "--nnodes",
        one_node: &[],
        reason: "the older launcher; `--nnodes` defaults to 1",
    },
];

/// A test suite runs on one machine: the modules a test runner collects (pytest's `test_*.py`,
/// `*_test.py` and `conftest.py`, and anything under a `tests` or `test` folder: the suite's
/// helpers and the workers its tests launch) are launched there, whatever they start.
pub fn is_test_module(path: &std::path::Path, in_test_folder: bool) -> bool {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let stem = name.strip_suffix(".py").unwrap_or(name);
    in_test_folder || stem.starts_with("test_") || stem.ends_with("_test") || stem == "conftest"
}

/// The folders a test suite lives in (below the project's root).
pub const TEST_FOLDERS: &[&str] = &["tests", "test"];

/// Host names and addresses of this machine: a rendezvous there keeps every rank on it.
pub const LOOPBACK_HOSTS: &[&str] = &["localhost", "127.0.0.1", "::1"];

/// A server's configuration module, by file name, and the functions in it the server calls in its
/// master process before it forks the workers (the hooks that run in each worker, gunicorn's
/// `post_fork` and `post_worker_init`, are not listed: nothing is inherited from them).
pub struct ServerHooks {
    pub files: &'static [&'static str],
    pub master_hooks: &'static [&'static str],
    pub reason: &'static str,
}

pub const SERVER_HOOKS: &[ServerHooks] = &[ServerHooks {
    files: GUNICORN_FILES,
    master_hooks: &["on_starting", "when_ready"],
    reason:
        "gunicorn calls `on_starting` and `when_ready` in its master, which then forks the workers",
}];

const GUNICORN_FILES: &[&str] = &["gunicorn.conf.py", "gunicorn_config.py", "gunicorn.py"];

/// A web server that can import the application in its master process and then fork the workers
/// that handle requests, and how a project's deployment files say it does: its configuration files
/// (by name, or by extension with the section that marks them), the command that starts it, and
/// its setting and flags.
pub struct PreloadingServer {
    pub command: &'static str,
    pub files: &'static [&'static str],
    /// Other configuration files: this extension, holding this section (`[uwsgi]` in an `.ini`).
    pub section_files: Option<(&'static str, &'static str)>,
    pub preload: Preload,
    /// How findings name its workers and what they advise.
    pub launcher: Launcher,
    pub reason: &'static str,
}

/// When a server preloads.
pub enum Preload {
    /// Only when its configuration sets `setting` true or its command passes `flag`.
    OptIn {
        setting: &'static str,
        flag: &'static str,
    },
    /// Unless its configuration sets one of `settings` true or its command passes one of `flags`;
    /// and only when it forks workers at all: a master process or several workers (`forks`:
    /// settings and flags, true or a number above 1).
    OptOut {
        settings: &'static [&'static str],
        flags: &'static [&'static str],
        forks: &'static [&'static str],
    },
}

pub const PRELOADING_SERVERS: &[PreloadingServer] = &[
    PreloadingServer {
        command: "gunicorn",
        files: GUNICORN_FILES,
        section_files: None,
        preload: Preload::OptIn {
            setting: "preload_app",
            flag: "--preload",
        },
        launcher: SERVER_WORKER,
        reason: "gunicorn imports the application in its master only with `preload_app = True` or `--preload`, then forks the workers",
    },
    PreloadingServer {
        command: "uwsgi",
        files: &["uwsgi.ini"],
        section_files: Some(("ini", "[uwsgi]")),
        preload: Preload::OptOut {
            settings: &["lazy-apps", "lazy"],
            flags: &["--lazy-apps", "--lazy"],
            forks: &["master", "processes", "workers", "--master", "-M", "--processes", "--workers", "-p"],
        },
        launcher: Launcher {
            subject: "The uWSGI server that runs this handler",
            spawn_help: "set `lazy-apps = true` in the uWSGI configuration (each worker then loads the application itself), or load the model lazily on the first request instead of at import",
            ..SERVER_WORKER
        },
        reason: "uWSGI loads the application once and forks its workers from that process unless `lazy-apps` is set (uWSGI docs, \"Things to know\"); with one process and no master it forks none",
    },
];

// What starts children, as messages and analyses need it (core's `Launcher`). A row that starts
// children names one of these, or carries its own (`Behaviour::ForksWorkers`).

use gpulint_core::effect::{Launcher, PerGpu, SpawnFix};

/// Help for a fork no start method governs.
const FORK_EARLIER: &str =
    "fork before CUDA is initialised, or start the child with `subprocess`/spawn";
/// Help for `multiprocessing`'s own objects.
const FROM_SPAWN_CONTEXT: &str = "create it from `multiprocessing.get_context(\"spawn\")`";

/// `Process(...).start()`.
pub const PROCESS_START: Launcher = Launcher {
    subject: "This `start()`",
    label: None,
    spawn_help: FROM_SPAWN_CONTEXT,
    spawn_fix: SpawnFix::FromContext,
    ends_with_code: true,
    per_gpu: PerGpu::WhenRepeated,
    data_workers: false,
    inherits_handed: true,
};

/// A worker pool (`multiprocessing.Pool`).
pub const POOL: Launcher = Launcher {
    subject: "This pool",
    label: None,
    spawn_help: FROM_SPAWN_CONTEXT,
    spawn_fix: SpawnFix::FromContext,
    ends_with_code: false,
    per_gpu: PerGpu::Never,
    data_workers: false,
    inherits_handed: false,
};

/// `ProcessPoolExecutor`.
pub const EXECUTOR: Launcher = Launcher {
    subject: "This executor",
    label: None,
    spawn_help: "pass `mp_context=multiprocessing.get_context(\"spawn\")`",
    spawn_fix: SpawnFix::ContextKeyword("mp_context"),
    ends_with_code: false,
    per_gpu: PerGpu::Never,
    data_workers: false,
    inherits_handed: false,
};

/// A raw `os.fork()`.
pub const OS_FORK: Launcher = Launcher {
    subject: "`os.fork()`",
    label: None,
    spawn_help: FORK_EARLIER,
    spawn_fix: SpawnFix::None,
    ends_with_code: false,
    per_gpu: PerGpu::Never,
    data_workers: false,
    inherits_handed: false,
};

/// A `with` block run in a forked daemon (`python-daemon`'s `DaemonContext`).
pub const DAEMON_CONTEXT: Launcher = Launcher {
    subject: "This daemon context",
    ..OS_FORK
};

/// torch's `DataLoader` with workers.
pub const DATA_LOADER: Launcher = Launcher {
    subject: "This DataLoader",
    label: None,
    spawn_help: "pass `multiprocessing_context=\"spawn\"`",
    spawn_fix: SpawnFix::Keyword("multiprocessing_context=\"spawn\""),
    ends_with_code: false,
    per_gpu: PerGpu::Never,
    data_workers: true,
    inherits_handed: true,
};

/// A Hugging Face dataset's `map`/`filter` with `num_proc`.
pub const DATASET_MAP: Launcher = Launcher {
    subject: "This `num_proc` dataset operation",
    label: None,
    spawn_help: "call `multiprocess.set_start_method(\"spawn\")` under the main guard (datasets forks through `multiprocess`)",
    spawn_fix: SpawnFix::None,
    ends_with_code: false,
    per_gpu: PerGpu::Never,
    data_workers: true,
    inherits_handed: false,
};

/// `torch.multiprocessing.spawn` / `start_processes`: one rank a process.
pub const START_PROCESSES: Launcher = Launcher {
    subject: "`start_processes`",
    label: None,
    spawn_help: "pass `start_method=\"spawn\"`",
    spawn_fix: SpawnFix::None,
    ends_with_code: true,
    per_gpu: PerGpu::Always,
    data_workers: false,
    inherits_handed: false,
};

/// A task queue's worker, which imports the module that defines the task and then forks its
/// pool of children that run it (Celery's prefork pool).
pub const TASK_WORKER: Launcher = Launcher {
    subject: "The worker that runs this task",
    label: Some("a task: the worker imports this module, then forks the children that run it"),
    spawn_help: "initialise CUDA in the worker's children (lazily in the task, or in a `worker_process_init` handler), not at import; or run the worker with `--pool solo` or `--pool threads`",
    spawn_fix: SpawnFix::None,
    ends_with_code: false,
    per_gpu: PerGpu::Never,
    data_workers: false,
    inherits_handed: false,
};

/// A web server that imports the application in its master process and then forks the workers
/// that handle requests (gunicorn with `--preload`).
pub const SERVER_WORKER: Launcher = Launcher {
    subject: "The preloading server that runs this handler",
    label: Some("a handler: the server imports this module, then forks the workers that run it"),
    spawn_help: "load the model in each worker (gunicorn's `post_fork` or `post_worker_init` hook, or lazily on the first request), not at import; or drop `--preload`/`preload_app`",
    ..TASK_WORKER
};

/// A server's workers, forked after a hook of its configuration ran in the master (gunicorn's
/// `on_starting`).
pub const SERVER_HOOK: Launcher = Launcher {
    subject: "The server that calls this hook",
    label: Some("runs in the server's master, which forks the workers after it"),
    spawn_help: "load models in each worker instead (gunicorn's `post_fork` or `post_worker_init` hook, or lazily on the first request)",
    ..TASK_WORKER
};

/// An inference engine's worker processes, one per GPU (vLLM's tensor-parallel workers).
pub const ENGINE_WORKERS: Launcher = Launcher {
    subject: "This parallel engine",
    label: None,
    spawn_help: "set `VLLM_WORKER_MULTIPROC_METHOD=spawn` in the environment before creating the engine (keep it under the main guard)",
    spawn_fix: SpawnFix::None,
    ends_with_code: false,
    per_gpu: PerGpu::Never,
    data_workers: false,
    inherits_handed: false,
};

/// A library method that forks worker processes of its own and runs code of the caller's in them
/// (a training loop's data workers, a pipeline's processes). The row holds all of it: when the
/// call forks, how the workers start, what they run and how findings name it, so adding such a
/// launcher is one row of a library table.
#[derive(Debug, PartialEq)]
pub struct ForkingCall {
    pub launcher: Launcher,
    /// How many workers: the call forks when this argument (else `default`) is an integer above
    /// `above`, or a value gpulint cannot read; not when it is `None`.
    pub workers: super::Param,
    pub above: i64,
    /// The number of workers when the argument is absent.
    pub default: i64,
    /// An argument that must be passed with this value for the call to use processes at all
    /// (`use_multiprocessing=True`); otherwise it runs its workers as threads or in-process.
    pub only_with: Option<(super::Param, Given)>,
    /// Where the caller's code runs when the call asks for workers without `only_with`: in this
    /// process (threads, or the call's own loop: Keras), or, `false`, in processes that start
    /// clean (joblib's default `loky` backend), whose code is not followed here.
    pub unasked_here: bool,
    /// A negative count counts back from all the machine's CPUs or devices (`-1`: all of them),
    /// more than one on the hosts the rules describe.
    pub negative_is_all: bool,
    /// The layer whose start method the workers obey: its default, unless `set_start_method`
    /// changed it. `None`: the library forks on its own, whatever `set_start_method` says.
    pub layer: Option<super::Layer>,
    /// What the workers run.
    pub runs: WorkersRun,
    /// Which call starts the workers.
    pub at: ForkAt,
    /// The versions of the library in which the call forks at all (`None`: every version).
    pub versions: Option<Versions>,
}

/// A range of a package's versions: from `since` up to, not including, `until`. A row with one
/// forks only where the project's pins put the package in it; an unknown version reports less.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Versions {
    pub package: &'static str,
    pub since: crate::requirements::Version,
    pub until: crate::requirements::Version,
}

/// Which call of a forking row starts its workers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ForkAt {
    /// The row's call itself.
    Call,
    /// A later call of one of these methods of the object the row's call returns (`__call__`:
    /// calling the object). The row's call's arguments decide whether it forks (`workers`,
    /// `only_with`) and where the workers compute (`WorkersRun::OnDevices`); the method's
    /// arguments give the caller's code they run (`Callable`, `ItemsOf`, `CallsItems`).
    Methods(&'static [&'static str]),
}

/// A literal argument value a row asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Given {
    True,
    Str(&'static str),
    /// Any of these strings.
    OneOf(&'static [&'static str]),
}

/// What a forking call's workers run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorkersRun {
    /// The callable passed here, once a worker.
    Callable(super::Param),
    /// The items of the dataset passed here (its `__getitem__`, as a loader's workers do).
    ItemsOf(super::Param),
    /// The package's own code (a pipeline's models), which computes on the GPU when the package
    /// put itself there in the parent (its row initialised CUDA) and the workers are forked.
    Library {
        package: &'static str,
        what: &'static str,
    },
    /// The library's own code, each worker on a GPU of its own whatever the parent did (a
    /// trainer's ranks, one a device): on the GPU when `accelerator` is absent or one of its
    /// values, read from the call that decides the fork.
    OnDevices {
        what: &'static str,
        accelerator: Option<(super::Param, &'static [&'static str])>,
    },
    /// The items of the iterable passed here, each a call made ready without running it
    /// (`Behaviour::Defers`: `delayed(f)(x)`), run once a worker.
    CallsItems(super::Param),
}
