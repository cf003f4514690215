//! What the rules' unit tests share: a one-file source and the process-group fact GPU003 and
//! GPU015 both read.

use gpulint_analyses::process_group::ProcessGroupFact;
use gpulint_analyses::Facts;
use gpulint_core::effect::{Backend, CudaUse, Launcher, PerGpu, SpawnFix};
use gpulint_core::source::{FileId, Span};

use crate::Sources;

/// Every file reads as this text.
pub struct Text(pub &'static str);

impl Sources for Text {
    fn text(&self, _: FileId) -> &str {
        self.0
    }
}

pub fn span(start: usize, end: usize) -> Span {
    Span::new(FileId(0), start as u32, end as u32)
}

/// A group created on the first line, bound on the second.
pub const GROUP_THEN_BIND: &str =
    "dist.init_process_group(\"nccl\")\ntorch.cuda.set_device(rank)\n";

/// The facts of a group in [`GROUP_THEN_BIND`]: with a collective before the binding (`early`),
/// with the binding on the second line (`late`) or none.
pub fn group_facts(early: bool, late: bool, backend: Backend, cuda_used: bool) -> Facts {
    let set_device = GROUP_THEN_BIND.find("torch").expect("the second line");
    let fact = ProcessGroupFact {
        span: span(0, 31),
        backend,
        early_use: early.then(|| CudaUse {
            span: span(0, 4),
            what: "`barrier` runs on the current device".into(),
        }),
        late_bind: late.then(|| span(set_device, GROUP_THEN_BIND.len() - 1)),
        cuda_used,
    };
    Facts {
        process_groups: vec![fact],
        ..Facts::default()
    }
}

/// Launchers as the frontends' rows describe them.
pub const POOL: Launcher = Launcher {
    subject: "This pool",
    label: None,
    spawn_help: "create it from `multiprocessing.get_context(\"spawn\")`",
    spawn_fix: SpawnFix::FromContext,
    ends_with_code: false,
    per_gpu: PerGpu::Never,
    data_workers: false,
    inherits_handed: false,
};
pub const LOADER: Launcher = Launcher {
    subject: "This DataLoader",
    spawn_help: "pass `multiprocessing_context=\"spawn\"`",
    spawn_fix: SpawnFix::Keyword("multiprocessing_context=\"spawn\""),
    data_workers: true,
    inherits_handed: true,
    ..POOL
};
pub const DATA_MAP: Launcher = Launcher {
    subject: "This `num_proc` dataset operation",
    spawn_help: "call `multiprocess.set_start_method(\"spawn\")` under the main guard",
    spawn_fix: SpawnFix::None,
    data_workers: true,
    ..POOL
};
