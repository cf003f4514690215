//! What the analyses' unit tests share.

use gpulint_core::analysis::{Analysis, Context, ProcessEnd};
use gpulint_core::effect::{ChildStart, Effect, Launcher, PerGpu, SpawnFix, StartMethod};
use gpulint_core::source::{FileId, Span};

/// A one-byte span at `start` in file 0.
pub fn at(start: u32) -> Span {
    Span::new(FileId(0), start, start + 1)
}

/// The facts one process of analysis `A` emits for `effects`, ended as `end` says.
pub fn facts_of<A: Analysis>(effects: &[Effect], end: ProcessEnd) -> A::Facts {
    let mut a = A::default();
    let mut facts = A::Facts::default();
    for e in effects {
        a.effect(e, &Context::default(), &mut facts);
    }
    a.finish(&end, &mut facts);
    facts
}

/// A worker's end: `per_worker` as given, nothing else.
pub fn worker_end(per_worker: bool) -> ProcessEnd {
    ProcessEnd {
        per_worker,
        ..ProcessEnd::default()
    }
}

/// A launcher for tests: a process that runs its target once, one per GPU when repeated.
pub const PROCESS: Launcher = Launcher {
    subject: "This process",
    label: None,
    spawn_help: "start it by spawn",
    spawn_fix: SpawnFix::None,
    ends_with_code: true,
    per_gpu: PerGpu::WhenRepeated,
    data_workers: false,
    inherits_handed: true,
};
/// A pool whose workers live on.
pub const POOL: Launcher = Launcher {
    subject: "This pool",
    ends_with_code: false,
    per_gpu: PerGpu::Never,
    inherits_handed: false,
    ..PROCESS
};
/// A raw fork.
pub const FORK: Launcher = Launcher {
    subject: "This fork",
    ..POOL
};
/// A launcher of ranks, one per GPU.
pub const RANKS: Launcher = Launcher {
    subject: "This launcher",
    ends_with_code: true,
    per_gpu: PerGpu::Always,
    ..POOL
};

/// The first effect of a child of `launcher` started by `method` at `start`, from a clean parent.
pub fn child_started(launcher: &'static Launcher, method: StartMethod, start: u32) -> Effect {
    Effect::ChildStarted(ChildStart {
        span: at(start),
        launcher,
        start_method: method,
        start_method_source: None,
        parent_init: None,
        code: None,
        at_module_scope: false,
        during_reimport: false,
        other_layer_start: None,
        default_in_entry: None,
        made_by: None,
        repeated: true,
    })
}
