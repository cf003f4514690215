//! What Rust libraries do, as data. Each row maps a fully qualified path (as `use` declarations
//! resolve it) to a [`Behaviour`], with the reason and, where it depends on one, the crate version.
//! The interpreter looks a path up once ([`lookup`]) and acts on the row's kind; it names no library
//! itself.

use std::sync::OnceLock;

use gpulint_core::effect::Init;
use rustc_hash::FxHashMap;

/// The attribute that makes a function a Python extension module's initialiser (PyO3), and the one
/// that can rename the module (`#[pyo3(name = "...")]`; recent PyO3 also takes `name` on the
/// first). Python runs the initialiser when it first imports the module.
/// A raw `fork()` (libc's, nix's): its child runs the branch that follows.
pub const FORK: gpulint_core::effect::Launcher = gpulint_core::effect::Launcher {
    subject: "`fork()`",
    label: None,
    spawn_help: "fork before CUDA is initialised, or start the child with `std::process::Command`",
    spawn_fix: gpulint_core::effect::SpawnFix::None,
    ends_with_code: false,
    per_gpu: gpulint_core::effect::PerGpu::Never,
    data_workers: false,
    inherits_handed: false,
};

pub const EXTENSION_MODULE_ATTRIBUTE: &str = "pymodule";
pub const EXTENSION_OPTIONS_ATTRIBUTE: &str = "pyo3";

/// What a library item does, as far as the hazards care.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Behaviour {
    /// Another spelling of the row named here (a re-export).
    Alias(&'static str),
    /// Moves the process's CUDA state to `level`. `object`: returns a context, device or stream on
    /// the device argument `ordinal` names; `safe_in_child`: a forked child may call it (it returns
    /// an error or zero devices rather than using the parent's state).
    InitsCuda {
        level: Init,
        object: bool,
        ordinal: Option<usize>,
        safe_in_child: bool,
    },
    /// A device value naming CUDA device `ordinal` (its argument): no context until something is
    /// placed on it.
    CudaDevice { ordinal: Option<usize> },
    /// Asks the driver whether a GPU is there (initialising it), and returns CUDA device `ordinal`
    /// when one is, as a device value.
    CudaDeviceIfAvailable { ordinal: Option<usize> },
    /// Forks the process: returns the child's side and the parent's.
    Forks,
    /// The variant of a fork's result that the child sees.
    ForkChild,
    /// The variant of a fork's result that the parent sees.
    ForkParent,
    /// Reads the environment variable its first argument names.
    ReadsEnv,
    /// Runs its closure argument in this process (a thread shares the process's CUDA state).
    RunsClosure,
    /// A cell initialised by its closure at first use, once per process (`LazyLock::new`).
    LazyCell,
    /// An empty cell initialised once per process by `get_or_init` or `set` (`OnceLock::new`).
    OnceCell,
    /// The `lazy_static!` macro: each `static ref` is a [`Behaviour::LazyCell`].
    LazyStaticMacro,
    /// The `thread_local!` macro: each `static` is initialised at its first use on each thread.
    ThreadLocalMacro,
    /// Ends the process or replaces its program: nothing after it runs.
    EndsProcess,
    /// Returns its first argument, wrapped (`Arc::new`, `Some`, `Ok`).
    Wraps,
    /// Runs another program in a new process: it shares no CUDA state with this one.
    StartsProgram,
}

impl Behaviour {
    /// Whether effects start here: a CUDA context or device, or a fork. Every effect the
    /// interpreter reports, and every value it tracks that leads to one, comes from a call of a
    /// source (or of a method row that moves to CUDA); the other behaviours only carry or end
    /// what a source started.
    pub fn is_source(self) -> bool {
        matches!(
            self,
            InitsCuda { .. } | CudaDevice { .. } | CudaDeviceIfAvailable { .. } | Forks
        )
    }
}

/// A library item and what it does.
#[derive(Clone, Copy, Debug)]
pub struct Row {
    pub path: &'static str,
    pub behaviour: Behaviour,
    pub reason: &'static str,
    /// The crate versions the row holds for, where that matters.
    pub versions: Option<&'static str>,
}

const fn row(path: &'static str, behaviour: Behaviour, reason: &'static str) -> Row {
    Row {
        path,
        behaviour,
        reason,
        versions: None,
    }
}

const fn since(row: Row, versions: &'static str) -> Row {
    Row {
        versions: Some(versions),
        ..row
    }
}

const fn context(ordinal: Option<usize>) -> Behaviour {
    Behaviour::InitsCuda {
        level: Init::Context,
        object: true,
        ordinal,
        safe_in_child: false,
    }
}

const fn driver(safe_in_child: bool) -> Behaviour {
    Behaviour::InitsCuda {
        level: Init::Driver,
        object: false,
        ordinal: None,
        safe_in_child,
    }
}

use Behaviour::*;

pub static ROWS: &[Row] = &[
    // cudarc
    since(
        row(
            "cudarc::driver::CudaContext::new",
            context(Some(0)),
            "retains the device's primary context (cuInit, cuDevicePrimaryCtxRetain)",
        ),
        ">=0.13",
    ),
    row(
        "cudarc::driver::safe::CudaContext::new",
        Alias("cudarc::driver::CudaContext::new"),
        "re-exported as cudarc::driver::CudaContext",
    ),
    since(
        row(
            "cudarc::driver::CudaDevice::new",
            context(Some(0)),
            "retains the device's primary context and creates a stream",
        ),
        "<0.13",
    ),
    row(
        "cudarc::driver::safe::CudaDevice::new",
        Alias("cudarc::driver::CudaDevice::new"),
        "re-exported as cudarc::driver::CudaDevice",
    ),
    row(
        "cudarc::driver::CudaContext::device_count",
        driver(true),
        "cuInit then cuDeviceGetCount; in a forked child it returns an error",
    ),
    row(
        "cudarc::driver::CudaDevice::count",
        driver(true),
        "cuInit then cuDeviceGetCount; in a forked child it returns an error",
    ),
    row(
        "cudarc::driver::result::init",
        driver(false),
        "cuInit: the driver is initialised in this process",
    ),
    row(
        "cudarc::driver::result::device::get_count",
        driver(true),
        "cuDeviceGetCount, after cuInit",
    ),
    // candle
    row(
        "candle_core::Device::new_cuda",
        context(Some(0)),
        "creates a CUDA device with its context and stream",
    ),
    row(
        "candle_core::device::Device::new_cuda",
        Alias("candle_core::Device::new_cuda"),
        "re-exported at the crate root",
    ),
    row(
        "candle_core::Device::cuda_if_available",
        context(Some(0)),
        "with the cuda feature and a GPU, creates the CUDA device (its context)",
    ),
    row(
        "candle_core::device::Device::cuda_if_available",
        Alias("candle_core::Device::cuda_if_available"),
        "re-exported at the crate root",
    ),
    // tch
    row(
        "tch::Device::Cuda",
        CudaDevice { ordinal: Some(0) },
        "the enum variant names a device; placing a tensor on it creates the context",
    ),
    row(
        "tch::Device::cuda_if_available",
        CudaDeviceIfAvailable { ordinal: None },
        "calls torch::cuda::is_available (cudaGetDeviceCount initialises the driver)",
    ),
    row(
        "tch::Cuda::is_available",
        driver(true),
        "cudaGetDeviceCount initialises the driver; a forked child gets false",
    ),
    row(
        "tch::Cuda::device_count",
        driver(true),
        "cudaGetDeviceCount initialises the driver; a forked child gets 0",
    ),
    row(
        "tch::Cuda::cudnn_is_available",
        driver(true),
        "asks the CUDA runtime, which initialises the driver",
    ),
    row(
        "tch::utils::has_cuda",
        driver(true),
        "asks the CUDA runtime",
    ),
    // cust
    row(
        "cust::quick_init",
        context(None),
        "cuInit, then a context on device 0 made current",
    ),
    row("cust::init", driver(false), "cuInit"),
    row(
        "cust::context::Context::new",
        context(None),
        "creates a context on the device it is given",
    ),
    row(
        "cust::context::Context::create_and_push",
        context(None),
        "creates a context on the device it is given (cust 0.2)",
    ),
    row(
        "cust::prelude::Context::new",
        Alias("cust::context::Context::new"),
        "re-exported by the prelude",
    ),
    row(
        "cust::device::Device::get_device",
        CudaDevice { ordinal: Some(0) },
        "a device handle, after cust::init",
    ),
    row(
        "cust::prelude::Device::get_device",
        Alias("cust::device::Device::get_device"),
        "re-exported by the prelude",
    ),
    // Processes
    row(
        "nix::unistd::fork",
        Forks,
        "fork(2): the child has the parent's memory, not its CUDA state",
    ),
    row("libc::fork", Forks, "fork(2)"),
    row("fork::fork", Forks, "fork(2), through the fork crate"),
    row(
        "nix::unistd::ForkResult::Child",
        ForkChild,
        "the child's side of nix's fork",
    ),
    row(
        "nix::unistd::ForkResult::Parent",
        ForkParent,
        "the parent's side of nix's fork",
    ),
    row(
        "fork::Fork::Child",
        ForkChild,
        "the child's side of the fork crate's fork",
    ),
    row(
        "fork::Fork::Parent",
        ForkParent,
        "the parent's side of the fork crate's fork",
    ),
    row("std::process::exit", EndsProcess, "ends the process"),
    row("std::process::abort", EndsProcess, "ends the process"),
    row("libc::_exit", EndsProcess, "ends the process"),
    row("libc::exit", EndsProcess, "ends the process"),
    row("nix::unistd::execv", EndsProcess, "replaces the program"),
    row("nix::unistd::execvp", EndsProcess, "replaces the program"),
    row("nix::unistd::execve", EndsProcess, "replaces the program"),
    row(
        "std::process::Command::new",
        StartsProgram,
        "spawns (fork and exec) a new program: nothing of this process's CUDA state goes with it",
    ),
    row(
        "std::thread::spawn",
        RunsClosure,
        "a thread runs in this process, with its CUDA state",
    ),
    row(
        "std::thread::scope",
        RunsClosure,
        "scoped threads run in this process",
    ),
    // Environment
    row("std::env::var", ReadsEnv, "reads an environment variable"),
    row(
        "std::env::var_os",
        ReadsEnv,
        "reads an environment variable",
    ),
    // Process-wide statics
    since(
        row(
            "std::sync::LazyLock::new",
            LazyCell,
            "initialised by its closure at first use, once per process",
        ),
        "Rust >=1.80",
    ),
    row(
        "once_cell::sync::Lazy::new",
        LazyCell,
        "initialised by its closure at first use, once per process",
    ),
    since(
        row(
            "std::sync::OnceLock::new",
            OnceCell,
            "set once per process, by get_or_init or set",
        ),
        "Rust >=1.70",
    ),
    row(
        "once_cell::sync::OnceCell::new",
        OnceCell,
        "set once per process, by get_or_init or set",
    ),
    row(
        "lazy_static::lazy_static",
        LazyStaticMacro,
        "each `static ref` is initialised at first use, once per process",
    ),
    row(
        "lazy_static",
        Alias("lazy_static::lazy_static"),
        "the macro imported with #[macro_use]",
    ),
    // Per-thread statics: fork() copies only the thread that calls it, so the values that
    // thread's statics hold are the child's; another thread's are not.
    row(
        "std::thread_local",
        ThreadLocalMacro,
        "each `static` is the thread's own, initialised at its first `with` on that thread",
    ),
    row(
        "thread_local",
        Alias("std::thread_local"),
        "the macro from the prelude",
    ),
    since(
        row(
            "std::cell::OnceCell::new",
            OnceCell,
            "set once by get_or_init or set (in a `thread_local!`, once per thread)",
        ),
        "Rust >=1.70",
    ),
    // Wrappers that keep what they hold
    row("std::sync::Arc::new", Wraps, "shares its value"),
    row("std::sync::Arc::clone", Wraps, "shares its value"),
    row("std::rc::Rc::new", Wraps, "shares its value"),
    row("std::boxed::Box::new", Wraps, "holds its value"),
    row("std::sync::Mutex::new", Wraps, "holds its value"),
    row("std::sync::RwLock::new", Wraps, "holds its value"),
    row("std::option::Option::Some", Wraps, "holds its value"),
    row("std::result::Result::Ok", Wraps, "holds its value"),
];

/// Names every module sees without a `use` (the prelude), and the paths they stand for.
pub static PRELUDE: &[(&str, &str)] = &[
    ("Some", "std::option::Option::Some"),
    ("Ok", "std::result::Result::Ok"),
    ("Box", "std::boxed::Box"),
];

/// Crates whose names stand for themselves in paths (`core::` and `alloc::` mean `std::`).
pub static STD_ALIASES: &[(&str, &str)] = &[("core", "std"), ("alloc", "std")];

/// Crates through which a program reaches a GPU: a call into one of them with a CUDA object among
/// its arguments runs on that GPU. A crate that names none of these (nor a fork) is not analysed.
pub static GPU_CRATES: &[&str] = &[
    "cudarc",
    "candle_core",
    "candle_nn",
    "candle_transformers",
    "tch",
    "cust",
];

/// Crates that fork, for the scan that decides whether a crate is worth analysing.
pub static FORK_CRATES: &[&str] = &["nix", "libc", "fork"];

/// What a method does, by name, on the receivers it applies to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Method {
    /// Returns its receiver's value (`unwrap`, `clone`, `parse`).
    PassesThrough,
    /// Initialises a once-cell with its closure argument if it is empty, and returns its value.
    InitsOnce,
    /// Sets a once-cell to its argument if it is empty.
    SetsOnce,
    /// A once-cell's value, if set.
    GetsOnce,
    /// On a CUDA object: copies something to the host, or reads a property; returns a host value.
    ReturnsHost,
    /// Moves a tensor or module to CUDA device `ordinal` (the current one without it).
    MovesToCuda { ordinal: Option<usize> },
    /// Moves its receiver to the device its argument names.
    MovesToDevice,
    /// Calls its closure argument with the receiver's value and returns the result (`map`).
    MapsWith,
}

#[derive(Clone, Copy, Debug)]
pub struct MethodRow {
    pub name: &'static str,
    pub method: Method,
    /// Applies only in a crate that uses this one (the name is too common otherwise).
    pub crate_used: Option<&'static str>,
    pub reason: &'static str,
}

const fn method(name: &'static str, method: Method, reason: &'static str) -> MethodRow {
    MethodRow {
        name,
        method,
        crate_used: None,
        reason,
    }
}

pub static METHODS: &[MethodRow] = &[
    method("unwrap", Method::PassesThrough, "the value inside"),
    method("expect", Method::PassesThrough, "the value inside"),
    method("unwrap_or", Method::PassesThrough, "the value inside"),
    method("unwrap_or_else", Method::PassesThrough, "the value inside"),
    method(
        "unwrap_or_default",
        Method::PassesThrough,
        "the value inside",
    ),
    method("ok", Method::PassesThrough, "the value inside"),
    method("map_err", Method::PassesThrough, "the value inside"),
    method("context", Method::PassesThrough, "anyhow's error context"),
    method(
        "with_context",
        Method::PassesThrough,
        "anyhow's error context",
    ),
    method(
        "clone",
        Method::PassesThrough,
        "a shared handle to the same object",
    ),
    method("as_ref", Method::PassesThrough, "a reference"),
    method("borrow", Method::PassesThrough, "a reference"),
    method("lock", Method::PassesThrough, "a guard on the value"),
    method("read", Method::PassesThrough, "a guard on the value"),
    method("write", Method::PassesThrough, "a guard on the value"),
    method("into", Method::PassesThrough, "the same value, converted"),
    method("to_owned", Method::PassesThrough, "the same value"),
    method("parse", Method::PassesThrough, "the number a string holds"),
    method("to_string", Method::PassesThrough, "the same text"),
    method(
        "map",
        Method::MapsWith,
        "Option/Result: the closure's result",
    ),
    method(
        "and_then",
        Method::MapsWith,
        "Option/Result: the closure's result",
    ),
    method(
        "with",
        Method::MapsWith,
        "a thread-local's value handed to the closure (`LocalKey::with`)",
    ),
    method(
        "get_or_init",
        Method::InitsOnce,
        "OnceLock/OnceCell: the first call's closure wins",
    ),
    method(
        "get_or_try_init",
        Method::InitsOnce,
        "OnceCell: the first call's closure wins",
    ),
    method(
        "set",
        Method::SetsOnce,
        "OnceLock/OnceCell: only the first value is kept",
    ),
    method(
        "get",
        Method::GetsOnce,
        "OnceLock/OnceCell: the value, if set",
    ),
    method("to_vec0", Method::ReturnsHost, "candle: copies to the host"),
    method("to_vec1", Method::ReturnsHost, "candle: copies to the host"),
    method("to_vec2", Method::ReturnsHost, "candle: copies to the host"),
    method("to_vec3", Method::ReturnsHost, "candle: copies to the host"),
    method(
        "to_scalar",
        Method::ReturnsHost,
        "candle: copies to the host",
    ),
    method(
        "dtoh_sync_copy",
        Method::ReturnsHost,
        "cudarc: copies to the host",
    ),
    method(
        "memcpy_dtov",
        Method::ReturnsHost,
        "cudarc: copies to the host",
    ),
    method("ordinal", Method::ReturnsHost, "the device's number"),
    method("name", Method::ReturnsHost, "the device's name"),
    MethodRow {
        name: "cuda",
        method: Method::MovesToCuda { ordinal: None },
        crate_used: Some("tch"),
        reason: "tch: Tensor::cuda moves to the current CUDA device",
    },
    MethodRow {
        name: "to_device",
        method: Method::MovesToDevice,
        crate_used: None,
        reason: "tch and candle: moves to the device given",
    },
    MethodRow {
        name: "to",
        method: Method::MovesToDevice,
        crate_used: Some("tch"),
        reason: "tch: Tensor::to moves to the device given",
    },
];

/// What a macro does to the code it holds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Macro {
    /// Ends the thread's path (a panic in `main` or in a forked child ends that process).
    Diverges,
    /// Evaluates its comma-separated arguments (format strings are plain values).
    Evaluates,
}

/// Macros by their last path segment.
pub static MACROS: &[(&str, Macro)] = &[
    ("panic", Macro::Diverges),
    ("unreachable", Macro::Diverges),
    ("todo", Macro::Diverges),
    ("unimplemented", Macro::Diverges),
    ("vec", Macro::Evaluates),
    ("println", Macro::Evaluates),
    ("print", Macro::Evaluates),
    ("eprintln", Macro::Evaluates),
    ("eprint", Macro::Evaluates),
    ("format", Macro::Evaluates),
    ("write", Macro::Evaluates),
    ("writeln", Macro::Evaluates),
    ("assert", Macro::Evaluates),
    ("assert_eq", Macro::Evaluates),
    ("assert_ne", Macro::Evaluates),
    ("dbg", Macro::Evaluates),
];

pub fn macro_kind(name: &str) -> Option<Macro> {
    MACROS.iter().find(|(n, _)| *n == name).map(|(_, m)| *m)
}

/// An environment variable that holds a rank: across the whole job (`global`) or on this node.
#[derive(Clone, Copy, Debug)]
pub struct EnvRow {
    pub key: &'static str,
    pub global: bool,
    pub reason: &'static str,
}

pub static ENV: &[EnvRow] = &[
    EnvRow {
        key: "RANK",
        global: true,
        reason: "torchrun and most launchers: the rank across all nodes",
    },
    EnvRow {
        key: "SLURM_PROCID",
        global: true,
        reason: "Slurm: the task's rank across the job",
    },
    EnvRow {
        key: "OMPI_COMM_WORLD_RANK",
        global: true,
        reason: "Open MPI: the rank in MPI_COMM_WORLD",
    },
    EnvRow {
        key: "PMI_RANK",
        global: true,
        reason: "MPICH and Intel MPI: the rank across the job",
    },
    EnvRow {
        key: "LOCAL_RANK",
        global: false,
        reason: "torchrun: the rank on this node",
    },
    EnvRow {
        key: "SLURM_LOCALID",
        global: false,
        reason: "Slurm: the task's rank on this node",
    },
    EnvRow {
        key: "OMPI_COMM_WORLD_LOCAL_RANK",
        global: false,
        reason: "Open MPI: the rank on this node",
    },
];

/// The row for a fully qualified path, aliases followed.
pub fn lookup(path: &str) -> Option<&'static Row> {
    static BY_PATH: OnceLock<FxHashMap<&'static str, &'static Row>> = OnceLock::new();
    let map = BY_PATH.get_or_init(|| ROWS.iter().map(|r| (r.path, r)).collect());
    let mut row = *map.get(path)?;
    for _ in 0..4 {
        match row.behaviour {
            Alias(to) => row = map.get(to)?,
            _ => return Some(row),
        }
    }
    None
}

/// The row for a method name, if any applies given the crates the program uses.
pub fn method_row(name: &str, uses_crate: impl Fn(&str) -> bool) -> Option<&'static MethodRow> {
    METHODS
        .iter()
        .find(|m| m.name == name && m.crate_used.is_none_or(&uses_crate))
}

pub fn env_row(key: &str) -> Option<&'static EnvRow> {
    ENV.iter().find(|e| e.key == key)
}

/// Whether a path is in a GPU crate (a call into it with a CUDA object runs on the GPU).
pub fn in_gpu_crate(path: &str) -> bool {
    let root = path.split("::").next().unwrap_or_default();
    GPU_CRATES.contains(&root)
}

/// The items whose rows are sources (aliases too), as their crate and last path segment: what a
/// file must spell to name one.
pub fn sources() -> &'static [(&'static str, &'static str)] {
    static SOURCES: OnceLock<Vec<(&'static str, &'static str)>> = OnceLock::new();
    SOURCES.get_or_init(|| {
        let mut out: Vec<(&'static str, &'static str)> = ROWS
            .iter()
            .filter(|r| lookup(r.path).is_some_and(|row| row.behaviour.is_source()))
            .filter_map(|r| {
                let (krate, _) = r.path.split_once("::")?;
                let (_, last) = r.path.rsplit_once("::")?;
                Some((krate, last))
            })
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    })
}

/// The methods whose rows are sources (they move a value to CUDA), with the crate a crate must
/// use for the row to apply.
pub fn source_methods() -> Vec<(Option<&'static str>, &'static str)> {
    METHODS
        .iter()
        .filter(|m| matches!(m.method, Method::MovesToCuda { .. }))
        .map(|m| (m.crate_used, m.name))
        .collect()
}

/// The crates some method row applies only with.
pub fn method_crates() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = METHODS.iter().filter_map(|m| m.crate_used).collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Whether a source text may reach a GPU crate or fork: it names one of them (or a name a
/// dependency is renamed to) as the start of a path. A superset of what the resolver can see.
pub fn may_matter(text: &str, renamed: &[&str]) -> bool {
    let roots = GPU_CRATES
        .iter()
        .chain(FORK_CRATES)
        .copied()
        .chain(renamed.iter().copied());
    roots.into_iter().any(|root| {
        text.match_indices(root).any(|(at, _)| {
            let before = text[..at].chars().next_back();
            let starts_word = before.is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
            starts_word && text[at + root.len()..].starts_with("::")
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_alias_leads_to_a_row_and_each_path_has_one_row() {
        let mut seen = std::collections::HashSet::new();
        for r in ROWS {
            assert!(seen.insert(r.path), "{} twice", r.path);
            assert!(lookup(r.path).is_some(), "{} leads nowhere", r.path);
            assert!(!r.reason.is_empty());
        }
        // A prelude name stands for rows' paths, or it would be useless.
        for (_, to) in PRELUDE {
            assert!(ROWS.iter().any(|r| r.path.starts_with(to)), "{to}");
        }
    }

    #[test]
    fn only_a_path_that_starts_with_a_crate_matters() {
        assert!(may_matter("use tch::Device;", &[]));
        assert!(!may_matter("match x { _ => batch::run() }", &[]));
        assert!(may_matter("candle::Device::Cpu", &["candle"]));
    }

    #[test]
    fn tch_only_methods_need_tch() {
        assert!(method_row("cuda", |_| false).is_none());
        assert!(method_row("cuda", |c| c == "tch").is_some());
        assert!(method_row("unwrap", |_| false).is_some());
    }
}
