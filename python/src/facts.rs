//! The facts the semantic model hands to rules. Rules read these and nothing else.

use crate::libraries::processes::StartMethod;
use crate::libraries::Init;
use crate::source::Span;
use std::sync::Arc;

/// Where this process's CUDA state first left "clean".
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

/// What kind of fork point a [`ForkFact`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ForkKind {
    ProcessStart,
    Pool,
    Executor,
    OsFork,
    DataLoader,
    DatasetMap,
    StartProcesses,
    DaemonContext,
}

impl ForkKind {
    /// How messages name it: the subject of "... forks".
    pub fn describe(self) -> &'static str {
        match self {
            ForkKind::ProcessStart => "This `start()`",
            ForkKind::Pool => "This pool",
            ForkKind::Executor => "This executor",
            ForkKind::OsFork => "`os.fork()`",
            ForkKind::DataLoader => "This DataLoader",
            ForkKind::DatasetMap => "This `num_proc` dataset operation",
            ForkKind::StartProcesses => "`start_processes`",
            ForkKind::DaemonContext => "This daemon context",
        }
    }

    /// How a fix sets the start method here.
    pub fn spawn_fix(self) -> &'static str {
        match self {
            ForkKind::ProcessStart | ForkKind::Pool => {
                "create it from `multiprocessing.get_context(\"spawn\")`"
            }
            ForkKind::Executor => "pass `mp_context=multiprocessing.get_context(\"spawn\")`",
            ForkKind::DataLoader => "pass `multiprocessing_context=\"spawn\"`",
            ForkKind::DatasetMap => {
                "call `multiprocess.set_start_method(\"spawn\")` under the main guard (datasets forks through `multiprocess`)"
            }
            ForkKind::StartProcesses => "pass `start_method=\"spawn\"`",
            ForkKind::OsFork | ForkKind::DaemonContext => {
                "fork before CUDA is initialised, or start the child with `subprocess`/spawn"
            }
        }
    }
}

/// A child process created at `span`, with the parent's CUDA state then and the child's CUDA use.
#[derive(Clone, Debug, PartialEq)]
pub struct ForkFact {
    pub span: Span,
    pub kind: ForkKind,
    pub start_method: StartMethod,
    /// Why that start method: "the platform default", or the span that chose it.
    pub start_method_source: Option<Span>,
    /// CUDA state of the parent when the child was created.
    pub parent_init: Option<CudaInitSite>,
    /// The first CUDA use in code the child runs.
    pub child_use: Option<CudaUse>,
    /// What the child runs, for messages: "`embed`", "`FrameDataset.__getitem__`".
    pub child_code: String,
}

/// A global pinned to one device and used by per-worker code that chose another.
#[derive(Clone, Debug, PartialEq)]
pub struct PinnedGlobalFact {
    /// The assignment that binds the global.
    pub binding: Span,
    pub name: String,
    /// "cuda:0", or "the current device (cuda:0)".
    pub device: String,
    /// Where the worker chose its own device.
    pub choice: Span,
    /// Where the worker used the global.
    pub use_site: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Nccl,
    /// No backend given: NCCL when CUDA is in use.
    Default,
}

/// An `init_process_group` reached while the rank's device was not bound.
#[derive(Clone, Debug, PartialEq)]
pub struct ProcessGroupFact {
    pub span: Span,
    pub backend: Backend,
    /// The first collective or implicit-device allocation before the device was bound.
    pub early_use: Option<CudaUse>,
    /// The `set_device` that came after the process group, if any.
    pub late_bind: Option<Span>,
    /// Whether this process used CUDA at all.
    pub cuda_used: bool,
}

/// Everything the semantic model found in one module.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Facts {
    pub forks: Vec<ForkFact>,
    pub pinned_globals: Vec<PinnedGlobalFact>,
    pub process_groups: Vec<ProcessGroupFact>,
}
