//! Process creation: which APIs fork, which spawn, how the start method is chosen, and what ends a
//! process.

use super::{Behaviour, MethodBehaviour, MethodRow, Param, Receiver, Row};
use crate::target::PythonVersion;

pub use gpulint_core::effect::StartMethod;

pub mod launchers;

pub use launchers::{
    is_test_module, LaunchCommand, Preload, PreloadingServer, ServerHooks, LAUNCH_COMMANDS,
    LOOPBACK_HOSTS, PRELOADING_SERVERS, SERVER_HOOKS, TEST_FOLDERS,
};

/// The package whose start-method setting a fork point obeys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layer {
    /// `multiprocessing` and `torch.multiprocessing` share one default context.
    Multiprocessing,
    /// The `multiprocess` fork of it, used by Hugging Face `datasets`.
    Multiprocess,
}

impl Layer {
    /// Every layer.
    pub const ALL: [Layer; 2] = [Layer::Multiprocessing, Layer::Multiprocess];

    /// The module whose names a context of this layer offers (`ctx.Process` is `<module>.Process`).
    pub fn module(self) -> &'static str {
        match self {
            Layer::Multiprocessing => "multiprocessing",
            Layer::Multiprocess => "multiprocess",
        }
    }

    /// The function that makes a context of this layer with a start method of its own.
    pub fn get_context(self) -> &'static str {
        match self {
            Layer::Multiprocessing => "multiprocessing.get_context",
            Layer::Multiprocess => "multiprocess.get_context",
        }
    }

    /// Whether what a child is handed travels by `pickle`, which saves functions and classes by
    /// their importable name. `multiprocess` uses `dill`, which saves lambdas and closures by value.
    pub fn pickles_by_name(self) -> bool {
        match self {
            Layer::Multiprocessing => true,
            Layer::Multiprocess => false,
        }
    }
}

/// An object that carries values to other processes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Carrier {
    /// A queue: `put` pickles the value to the process that `get`s it.
    Queue,
    /// A pipe: a pair of connections; `send` pickles the value to the other end.
    Pipe,
    /// A manager: a server process whose proxies (`dict()`, `list()`, `Queue()`) hold values for
    /// every process that has them.
    Manager,
}

/// How a process-creating API is called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProcessApi {
    /// `Process(target=..., args=...)`: forks at `.start()`.
    Process { target: Param, args: Param },
    /// `Pool(...)`: forks its workers at construction; an initializer runs in each, and
    /// `maxtasksperchild` forks replacements later.
    Pool {
        initializer: Param,
        initargs: Param,
        max_tasks: Param,
    },
    /// `ProcessPoolExecutor(...)`: forks its workers at the first submit; an initializer runs in
    /// each.
    Executor {
        context: Param,
        initializer: Param,
        initargs: Param,
    },
    /// A raw fork.
    OsFork,
    /// Starts `func(rank, *args)` in new processes: always by spawn, or by `start_method` (spawn
    /// when absent). `one_node`: they all run on this machine, numbered from 0, so a rank of
    /// theirs is a rank on the node.
    Spawns {
        func: Param,
        args: Param,
        start_method: Option<Param>,
        one_node: bool,
    },
    /// A `with` block whose body runs in a forked daemon.
    DaemonContext,
}

/// How a pool or executor method passes work to the workers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorkerCall {
    /// `map(func, iterable)`: one item per call.
    Map,
    /// `starmap(func, iterable)`: one tuple of arguments per call.
    Starmap,
    /// `apply(func, args)`.
    Apply,
    /// `submit(func, *args)`.
    Submit,
}

/// The method a process subclass's child runs.
pub const RUN_METHOD: &str = "run";

/// Where the function is in every pool method.
pub const WORKER_FUNC: [Param; 2] = [Param::pos(0, "func"), Param::kw("fn")];
/// Where `map`'s and `starmap`'s items are.
pub const WORKER_ITEMS: Param = Param::pos(1, "iterable");
/// Where `apply`'s arguments are.
pub const WORKER_ARGS: Param = Param::pos(1, "args");

const fn row(name: &'static str, does: Behaviour, reason: &'static str) -> Row {
    Row { name, does, reason }
}

const PROCESS: ProcessApi = ProcessApi::Process {
    target: Param::kw("target"),
    args: Param::kw("args"),
};
const POOL: ProcessApi = ProcessApi::Pool {
    initializer: Param::pos(1, "initializer"),
    initargs: Param::pos(2, "initargs"),
    max_tasks: Param::pos(3, "maxtasksperchild"),
};
const MP: Layer = Layer::Multiprocessing;

const RUNS_COMMAND: Behaviour = Behaviour::RunsCommand {
    argv: Param::pos(0, "args"),
};

const METHOD: Param = Param::pos(0, "method");
const FORCE: Param = Param::pos(1, "force");
const FIXES_WITH_OBJECT: Behaviour = Behaviour::FixesStartMethod {
    layer: MP,
    allow_none: None,
    creates_objects: true,
    makes: None,
    pythons: None,
};
/// A queue or manager made with the default context: fixes its start method, and carries values.
const fn fixes_with(carrier: Carrier) -> Behaviour {
    Behaviour::FixesStartMethod {
        layer: MP,
        allow_none: None,
        creates_objects: true,
        makes: Some(carrier),
        pythons: None,
    }
}

/// Why a task decorator's function runs in forked children.
const PREFORK: &str = "the worker process imports the module that defines the task, then forks its prefork pool (Celery's default), whose children run it";

/// Why a route decorator's function can run in forked children.
const SERVED: &str = "the handler runs in the web server's workers; a server that preloads the application (gunicorn's `--preload`) imports this module in its master and forks the workers after";

/// Whether a row describes the `set_start_method` of the top-level package `root`.
pub fn sets_start_method_of(root: &str) -> bool {
    ROWS.iter().any(|r| {
        r.name
            .strip_suffix(".set_start_method")
            .is_some_and(|package| package.split('.').next() == Some(root))
    })
}

pub const ROWS: &[Row] = &[
    row(
        "celery.Celery",
        Behaviour::Returns("celery.Celery()"),
        "a Celery application: its `task` decorator registers tasks",
    ),
    row("celery.Celery().task", Behaviour::ForkedTask, PREFORK),
    row("celery.shared_task", Behaviour::ForkedTask, PREFORK),
    row(
        "flask.Flask",
        Behaviour::Returns("flask.Flask()"),
        "a Flask application: its route decorators register request handlers",
    ),
    row("flask.Flask().route", Behaviour::HandlesRequests, SERVED),
    row("flask.Flask().get", Behaviour::HandlesRequests, SERVED),
    row("flask.Flask().post", Behaviour::HandlesRequests, SERVED),
    row("flask.Flask().put", Behaviour::HandlesRequests, SERVED),
    row("flask.Flask().delete", Behaviour::HandlesRequests, SERVED),
    row("flask.Flask().patch", Behaviour::HandlesRequests, SERVED),
    row(
        "flask.Blueprint",
        Behaviour::Returns("flask.Blueprint()"),
        "a Flask blueprint: its route decorators register request handlers",
    ),
    row(
        "flask.Blueprint().route",
        Behaviour::HandlesRequests,
        SERVED,
    ),
    row("flask.Blueprint().get", Behaviour::HandlesRequests, SERVED),
    row("flask.Blueprint().post", Behaviour::HandlesRequests, SERVED),
    row("flask.Blueprint().put", Behaviour::HandlesRequests, SERVED),
    row(
        "flask.Blueprint().delete",
        Behaviour::HandlesRequests,
        SERVED,
    ),
    row(
        "flask.Blueprint().patch",
        Behaviour::HandlesRequests,
        SERVED,
    ),
    row(
        "fastapi.FastAPI",
        Behaviour::Returns("fastapi.FastAPI()"),
        "a FastAPI application: its route decorators register request handlers",
    ),
    row("fastapi.FastAPI().get", Behaviour::HandlesRequests, SERVED),
    row("fastapi.FastAPI().post", Behaviour::HandlesRequests, SERVED),
    row("fastapi.FastAPI().put", Behaviour::HandlesRequests, SERVED),
    row(
        "fastapi.FastAPI().delete",
        Behaviour::HandlesRequests,
        SERVED,
    ),
    row(
        "fastapi.FastAPI().patch",
        Behaviour::HandlesRequests,
        SERVED,
    ),
    row(
        "fastapi.FastAPI().api_route",
        Behaviour::HandlesRequests,
        SERVED,
    ),
    row(
        "fastapi.FastAPI().websocket",
        Behaviour::HandlesRequests,
        SERVED,
    ),
    row(
        "fastapi.APIRouter",
        Behaviour::Returns("fastapi.APIRouter()"),
        "a FastAPI router: its route decorators register request handlers",
    ),
    row(
        "fastapi.APIRouter().get",
        Behaviour::HandlesRequests,
        SERVED,
    ),
    row(
        "fastapi.APIRouter().post",
        Behaviour::HandlesRequests,
        SERVED,
    ),
    row(
        "fastapi.APIRouter().put",
        Behaviour::HandlesRequests,
        SERVED,
    ),
    row(
        "fastapi.APIRouter().delete",
        Behaviour::HandlesRequests,
        SERVED,
    ),
    row(
        "fastapi.APIRouter().patch",
        Behaviour::HandlesRequests,
        SERVED,
    ),
    row(
        "fastapi.APIRouter().api_route",
        Behaviour::HandlesRequests,
        SERVED,
    ),
    row(
        "fastapi.APIRouter().websocket",
        Behaviour::HandlesRequests,
        SERVED,
    ),
    row(
        "multiprocessing.Process",
        Behaviour::StartsChildren {
            api: PROCESS,
            layer: MP,
        },
        "forks at `.start()` under the default context",
    ),
    row(
        "multiprocessing.Lock",
        FIXES_WITH_OBJECT,
        "makes a lock with the default context, which fixes its start method",
    ),
    row(
        "multiprocessing.RLock",
        FIXES_WITH_OBJECT,
        "makes a lock with the default context, which fixes its start method",
    ),
    row(
        "multiprocessing.Semaphore",
        FIXES_WITH_OBJECT,
        "makes a semaphore with the default context, which fixes its start method",
    ),
    row(
        "multiprocessing.Event",
        FIXES_WITH_OBJECT,
        "makes an event with the default context, which fixes its start method",
    ),
    row(
        "multiprocessing.Condition",
        FIXES_WITH_OBJECT,
        "makes a condition with the default context, which fixes its start method",
    ),
    row(
        "multiprocessing.Barrier",
        FIXES_WITH_OBJECT,
        "makes a barrier with the default context, which fixes its start method",
    ),
    row(
        "multiprocessing.Queue",
        fixes_with(Carrier::Queue),
        "makes a queue with the default context, which fixes its start method",
    ),
    row(
        "multiprocessing.JoinableQueue",
        fixes_with(Carrier::Queue),
        "makes a queue with the default context, which fixes its start method",
    ),
    row(
        "multiprocessing.SimpleQueue",
        fixes_with(Carrier::Queue),
        "makes a queue with the default context, which fixes its start method",
    ),
    row(
        "multiprocessing.Manager",
        fixes_with(Carrier::Manager),
        "makes a manager process with the default context, which fixes its start method",
    ),
    row(
        "multiprocessing.Value",
        FIXES_WITH_OBJECT,
        "makes shared memory with the default context, which fixes its start method",
    ),
    row(
        "multiprocessing.Array",
        FIXES_WITH_OBJECT,
        "makes shared memory with the default context, which fixes its start method",
    ),
    row(
        "multiprocessing.get_start_method",
        Behaviour::FixesStartMethod {
            layer: MP,
            allow_none: Some(Param::pos(0, "allow_none")),
            creates_objects: false,
            makes: None,
            pythons: None,
        },
        "fixes the default context's start method unless `allow_none=True`",
    ),
    row(
        "multiprocessing.freeze_support",
        Behaviour::FixesStartMethod {
            layer: MP,
            allow_none: None,
            creates_objects: false,
            makes: None,
            pythons: Some((
                PythonVersion {
                    major: 3,
                    minor: 13,
                },
                PythonVersion {
                    major: 3,
                    minor: 14,
                },
            )),
        },
        // Checked: 3.13.0's `BaseContext.freeze_support` tests `sys.platform` alone; gh-80334's change
        // (PR 134462, in 3.13.4 and 3.14) tests `self.get_start_method() == 'spawn'` first
        // (quoted in gh-135726); gh-140814's fix (PR 144608, 2026) asks with `allow_none=True`.
        "asks the default context for its start method without `allow_none` (CPython 3.13.4 on, and 3.14, until gh-140814's fix), which fixes it",
    ),
    row(
        "torch.multiprocessing.Lock",
        Behaviour::Alias("multiprocessing.Lock"),
        "re-exported",
    ),
    row(
        "torch.multiprocessing.Queue",
        Behaviour::Alias("multiprocessing.Queue"),
        "re-exported",
    ),
    row(
        "torch.multiprocessing.Event",
        Behaviour::Alias("multiprocessing.Event"),
        "re-exported",
    ),
    row(
        "torch.multiprocessing.Manager",
        Behaviour::Alias("multiprocessing.Manager"),
        "re-exported",
    ),
    row(
        "torch.multiprocessing.SimpleQueue",
        Behaviour::Alias("multiprocessing.SimpleQueue"),
        "re-exported",
    ),
    row(
        "multiprocessing.Pipe",
        Behaviour::MakesCarrier(Carrier::Pipe),
        "two connections; what one sends is pickled to the other (no start method involved)",
    ),
    row(
        "torch.multiprocessing.Pipe",
        Behaviour::Alias("multiprocessing.Pipe"),
        "re-exported",
    ),
    row(
        "torch.multiprocessing.JoinableQueue",
        Behaviour::Alias("multiprocessing.JoinableQueue"),
        "re-exported",
    ),
    row(
        "multiprocessing.managers.SyncManager",
        Behaviour::MakesCarrier(Carrier::Manager),
        "a manager built directly (it is started with `.start()`, not by the default context)",
    ),
    row(
        "time.sleep",
        Behaviour::Waits,
        "keeps the process alive for a while: gpulint cannot tell whether long enough",
    ),
    row(
        "torch.multiprocessing.get_start_method",
        Behaviour::Alias("multiprocessing.get_start_method"),
        "re-exported",
    ),
    row(
        "multiprocessing.Pool",
        Behaviour::StartsChildren {
            api: POOL,
            layer: MP,
        },
        "forks every worker at construction, and again to replace one",
    ),
    row(
        "concurrent.futures.ProcessPoolExecutor",
        Behaviour::StartsChildren {
            api: ProcessApi::Executor {
                context: Param::kw("mp_context"),
                initializer: Param::pos(2, "initializer"),
                initargs: Param::pos(3, "initargs"),
            },
            layer: MP,
        },
        "forks its workers at the first submit unless `mp_context=` says otherwise",
    ),
    row(
        "multiprocess.Process",
        Behaviour::StartsChildren {
            api: PROCESS,
            layer: Layer::Multiprocess,
        },
        "the `multiprocess` package's Process",
    ),
    row(
        "multiprocess.Pool",
        Behaviour::StartsChildren {
            api: POOL,
            layer: Layer::Multiprocess,
        },
        "the `multiprocess` package's Pool",
    ),
    row(
        "os.fork",
        Behaviour::StartsChildren {
            api: ProcessApi::OsFork,
            layer: MP,
        },
        "a raw fork: no hook runs in the child",
    ),
    row(
        "os.forkpty",
        Behaviour::StartsChildren {
            api: ProcessApi::OsFork,
            layer: MP,
        },
        "a raw fork with a terminal",
    ),
    row(
        "torch.multiprocessing.spawn",
        Behaviour::StartsChildren {
            api: ProcessApi::Spawns {
                func: Param::pos(0, "fn"),
                args: Param::pos(1, "args"),
                start_method: None,
                one_node: true,
            },
            layer: MP,
        },
        "always starts children by spawn, each on this machine with its index as its rank",
    ),
    row(
        "torch.multiprocessing.start_processes",
        Behaviour::StartsChildren {
            api: ProcessApi::Spawns {
                func: Param::pos(0, "fn"),
                args: Param::pos(1, "args"),
                start_method: Some(Param::pos(5, "start_method")),
                one_node: true,
            },
            layer: MP,
        },
        "uses its `start_method` argument, spawn by default",
    ),
    row(
        "daemon.DaemonContext",
        Behaviour::StartsChildren {
            api: ProcessApi::DaemonContext,
            layer: MP,
        },
        "python-daemon forks when the context is entered",
    ),
    row(
        "multiprocessing.get_context",
        Behaviour::GetContext {
            layer: MP,
            method: METHOD,
        },
        "a context with its own start method",
    ),
    row(
        "multiprocess.get_context",
        Behaviour::GetContext {
            layer: Layer::Multiprocess,
            method: METHOD,
        },
        "a context with its own start method",
    ),
    row(
        "multiprocessing.set_start_method",
        Behaviour::SetStartMethod {
            layer: MP,
            method: METHOD,
            force: FORCE,
        },
        "changes the default context (torch.multiprocessing's too)",
    ),
    row(
        "multiprocess.set_start_method",
        Behaviour::SetStartMethod {
            layer: Layer::Multiprocess,
            method: METHOD,
            force: FORCE,
        },
        "changes `multiprocess`'s default context only",
    ),
    row(
        "torch.multiprocessing.Process",
        Behaviour::Alias("multiprocessing.Process"),
        "re-exported",
    ),
    row(
        "torch.multiprocessing.Pool",
        Behaviour::Alias("multiprocessing.Pool"),
        "re-exported",
    ),
    row(
        "torch.multiprocessing.get_context",
        Behaviour::Alias("multiprocessing.get_context"),
        "re-exported: one default context for both",
    ),
    row(
        "torch.multiprocessing.set_start_method",
        Behaviour::Alias("multiprocessing.set_start_method"),
        "re-exported: one default context for both",
    ),
    row(
        "multiprocessing.pool.Pool",
        Behaviour::Alias("multiprocessing.Pool"),
        "where it is defined",
    ),
    row(
        "multiprocessing.context.Process",
        Behaviour::Alias("multiprocessing.Process"),
        "where it is defined",
    ),
    row(
        "multiprocessing.process.BaseProcess",
        Behaviour::Alias("multiprocessing.Process"),
        "its base class",
    ),
    row(
        "torch.multiprocessing.spawn.spawn",
        Behaviour::Alias("torch.multiprocessing.spawn"),
        "where it is defined",
    ),
    row(
        "torch.multiprocessing.spawn.start_processes",
        Behaviour::Alias("torch.multiprocessing.start_processes"),
        "where it is defined",
    ),
    row(
        "concurrent.futures.process.ProcessPoolExecutor",
        Behaviour::Alias("concurrent.futures.ProcessPoolExecutor"),
        "where it is defined",
    ),
    row(
        "subprocess.run",
        RUNS_COMMAND,
        "runs a command and waits for it",
    ),
    row("subprocess.Popen", RUNS_COMMAND, "starts a command"),
    row(
        "subprocess.call",
        RUNS_COMMAND,
        "runs a command and waits for it",
    ),
    row(
        "subprocess.check_call",
        RUNS_COMMAND,
        "runs a command and waits for it",
    ),
    row(
        "subprocess.check_output",
        RUNS_COMMAND,
        "runs a command and waits for it",
    ),
    row(
        "os.system",
        Behaviour::RunsCommand {
            argv: Param::pos(0, "command"),
        },
        "runs a shell command line",
    ),
    row("sys.exit", Behaviour::EndsProcess, "raises SystemExit"),
    row(
        "os._exit",
        Behaviour::EndsProcess,
        "ends the process at once",
    ),
    row("builtins.exit", Behaviour::EndsProcess, "raises SystemExit"),
    row("builtins.quit", Behaviour::EndsProcess, "raises SystemExit"),
    row("os.execv", Behaviour::EndsProcess, "replaces the program"),
    row("os.execve", Behaviour::EndsProcess, "replaces the program"),
    row("os.execl", Behaviour::EndsProcess, "replaces the program"),
    row("os.execle", Behaviour::EndsProcess, "replaces the program"),
    row("os.execlp", Behaviour::EndsProcess, "replaces the program"),
    row("os.execlpe", Behaviour::EndsProcess, "replaces the program"),
    row("os.execvp", Behaviour::EndsProcess, "replaces the program"),
    row("os.execvpe", Behaviour::EndsProcess, "replaces the program"),
    row(
        "ray.remote",
        Behaviour::NarrowsVisibility { param: "num_gpus" },
        "Ray runs the task or actor in a worker that sees only the GPUs it was given",
    ),
];

const fn worker(name: &'static str, on: Receiver, call: WorkerCall) -> MethodRow {
    MethodRow {
        name,
        on,
        does: MethodBehaviour::RunsInWorkers(call),
        reason: "runs the function in the workers",
    }
}

const fn channel(name: &'static str, does: MethodBehaviour, reason: &'static str) -> MethodRow {
    MethodRow {
        name,
        on: Receiver::Channel,
        does,
        reason,
    }
}

const SENDS: &str = "pickles its arguments to another process: a CUDA tensor as an IPC handle";
const WAITS: &str = "blocks until another process has sent something";
const PROXY: &str = "a proxy of an object the manager process holds";

pub const METHODS: &[MethodRow] = &[
    MethodRow {
        name: "start",
        on: Receiver::Process,
        does: MethodBehaviour::StartsProcess,
        reason: "creates the child process",
    },
    MethodRow {
        name: "start",
        on: Receiver::Thread,
        does: MethodBehaviour::StartsThread,
        reason: "runs the thread's code in this process, on the thread's own current CUDA device",
    },
    MethodRow {
        name: "join",
        on: Receiver::Process,
        does: MethodBehaviour::Waits,
        reason: "waits until the child process ends",
    },
    MethodRow {
        name: "wait",
        on: Receiver::Any,
        does: MethodBehaviour::Waits,
        reason: "an event, barrier or condition: blocks until another process sets or reaches it",
    },
    channel("put", MethodBehaviour::Sends, SENDS),
    channel("put_nowait", MethodBehaviour::Sends, SENDS),
    channel("send", MethodBehaviour::Sends, SENDS),
    channel("append", MethodBehaviour::Sends, SENDS),
    channel("extend", MethodBehaviour::Sends, SENDS),
    channel("insert", MethodBehaviour::Sends, SENDS),
    channel("update", MethodBehaviour::Sends, SENDS),
    channel("setdefault", MethodBehaviour::Sends, SENDS),
    channel("get", MethodBehaviour::Waits, WAITS),
    channel("recv", MethodBehaviour::Waits, WAITS),
    channel(
        "join",
        MethodBehaviour::Waits,
        "a joinable queue: blocks until every item put was marked done",
    ),
    MethodRow {
        name: "Queue",
        on: Receiver::Manager,
        does: MethodBehaviour::MakesProxy,
        reason: PROXY,
    },
    MethodRow {
        name: "JoinableQueue",
        on: Receiver::Manager,
        does: MethodBehaviour::MakesProxy,
        reason: PROXY,
    },
    MethodRow {
        name: "dict",
        on: Receiver::Manager,
        does: MethodBehaviour::MakesProxy,
        reason: PROXY,
    },
    MethodRow {
        name: "list",
        on: Receiver::Manager,
        does: MethodBehaviour::MakesProxy,
        reason: PROXY,
    },
    MethodRow {
        name: "Namespace",
        on: Receiver::Manager,
        does: MethodBehaviour::MakesProxy,
        reason: PROXY,
    },
    worker("map", Receiver::Pool, WorkerCall::Map),
    worker("map_async", Receiver::Pool, WorkerCall::Map),
    worker("imap", Receiver::Pool, WorkerCall::Map),
    worker("imap_unordered", Receiver::Pool, WorkerCall::Map),
    worker("starmap", Receiver::Pool, WorkerCall::Starmap),
    worker("starmap_async", Receiver::Pool, WorkerCall::Starmap),
    worker("apply", Receiver::Pool, WorkerCall::Apply),
    worker("apply_async", Receiver::Pool, WorkerCall::Apply),
    worker("submit", Receiver::Executor, WorkerCall::Submit),
    worker("map", Receiver::Executor, WorkerCall::Map),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_layer_names_its_own_get_context() {
        for layer in Layer::ALL {
            let found = super::super::lookup(layer.get_context());
            assert!(
                matches!(found, Some((Behaviour::GetContext { layer: l, .. }, _)) if l == layer),
                "{layer:?}"
            );
        }
    }
}
