//! Effects inside installed packages (see `program::environment`): the code that produced them is
//! the package's, run by a call of the project's. Their places in the package are moved to that
//! call, which is where the user can act, and each move is kept (`Interp::crossings`) so that a
//! finding shows the package's line too. A place the fix of a finding would edit is dropped
//! instead: nothing in a package is ever edited, nor the project's call by a fix made for another
//! call.

use gpulint_core::analysis::Analysis;
use gpulint_core::effect::{ChildStart, CudaObject, Effect, UnserializableSent};

use super::Interp;
use crate::source::Span;

impl<A: Analysis> Interp<'_, A> {
    /// The project's call through which the running code entered an installed package, when the
    /// running code is the package's: the outermost of the innermost run of the package's frames
    /// was called from the project there; in a child started inside the package (whose frames
    /// are its own), the call that ran the code that started it. `None` in the project's code
    /// and at a package's import in the main process.
    fn package_entered_at(&self) -> Option<Span> {
        let mut entered = None;
        for frame in self.frames.iter().rev() {
            if !self.p.in_environment(frame.func.file) {
                return entered.filter(|call: &Span| !self.p.in_environment(call.file));
            }
            entered = frame.called_at;
        }
        entered
            .filter(|call| !self.p.in_environment(call.file))
            .or_else(|| self.child_package_calls.last().copied().flatten())
    }

    /// The frames of the parent, taken while a child runs its own code; what they say of the
    /// package the child was started in is kept for the child's effects.
    pub(super) fn take_frames_for_child(&mut self) -> Vec<super::Frame> {
        let entered = match self.p.reads_environment() {
            true => self.package_entered_at(),
            false => None,
        };
        self.child_package_calls.push(entered);
        std::mem::take(&mut self.frames)
    }

    /// Gives the parent its frames back after a child ran.
    pub(super) fn put_frames_after_child(&mut self, frames: Vec<super::Frame>) {
        self.child_package_calls.pop();
        self.frames = frames;
    }

    /// Moves the places of `effect` that lie in an installed package to the project's call that
    /// ran it (see the module's docs).
    pub(super) fn place_in_project(&mut self, effect: &mut Effect) {
        if !self.p.reads_environment() {
            return;
        }
        let Some(call) = self.package_entered_at() else {
            return;
        };
        let p = self.p;
        let mut moved = Vec::new();
        let mut main = shows_its_place(effect);
        let mut at = |span: &mut Span| {
            if p.in_environment(span.file) {
                if main {
                    moved.push(*span);
                }
                *span = call;
            }
            main = false;
        };
        spans(effect, &mut at);
        self.crossings
            .extend(moved.into_iter().map(|inside| (call, inside)));
    }
}

/// Whether a finding may stand where `effect` happened (so the package's line is worth showing):
/// not where a process only waited, limited its threads, or a call was cut short.
fn shows_its_place(effect: &Effect) -> bool {
    !matches!(
        effect,
        Effect::WaitedForOthers { .. }
            | Effect::HostThreadsLimited { .. }
            | Effect::ThreadEnded { .. }
            | Effect::NotFollowed { .. }
            | Effect::ChildRuns { .. }
            | Effect::EnvWritten {
                visibility: None,
                ..
            }
    )
}

/// Calls `at` on each place `effect` names, its main one (where a finding on it is) first; drops
/// the places of fixes that lie in an installed package.
fn spans(effect: &mut Effect, at: &mut impl FnMut(&mut Span)) {
    match effect {
        Effect::CudaInit { site, .. } => at(&mut site.span),
        Effect::CudaObjectCreated { object, .. } => object_spans(object, at),
        Effect::CudaUsed { object, span, .. } | Effect::CudaObjectSent { object, span, .. } => {
            at(span);
            object_spans(object, at);
        }
        Effect::DeviceBound { span, .. }
        | Effect::ProcessGroupCreated { span, .. }
        | Effect::CollectiveRun { span, .. }
        | Effect::StartMethodSet { span, .. }
        | Effect::StartMethodFixed { span, .. }
        | Effect::DeviceFromGlobalRank { span, .. }
        | Effect::Launched { span, .. }
        | Effect::CheckpointSaved { span, .. }
        | Effect::WaitedForOthers { span }
        | Effect::EnvWritten { span, .. }
        | Effect::CudaHeld { span, .. }
        | Effect::HostCompute { span, .. }
        | Effect::HostThreadsLimited { span }
        | Effect::ThreadStarted { span }
        | Effect::ThreadEnded { span }
        | Effect::CurrentDeviceUsed { span, .. }
        | Effect::GlobalWritten { span, .. }
        | Effect::GlobalRead { span, .. }
        | Effect::NotFollowed { function: span } => at(span),
        Effect::ChildStarted(child) => child_spans(child, at),
        Effect::ChildRuns { .. } => {}
        Effect::CachedDeviceReturned {
            span,
            global,
            ordinal,
        } => {
            at(span);
            at(&mut global.1);
            at(ordinal);
        }
        Effect::UnmappedLoad {
            span, none_given, ..
        } => {
            at(span);
            drop_fix_place(none_given, at);
        }
        Effect::UnserializableSent(sent) => sent_spans(sent, at),
    }
}

fn object_spans(object: &mut CudaObject, at: &mut impl FnMut(&mut Span)) {
    at(&mut object.site);
    if let Some((_, span)) = &mut object.global {
        at(span);
    }
}

fn child_spans(child: &mut ChildStart, at: &mut impl FnMut(&mut Span)) {
    at(&mut child.span);
    if let Some(span) = &mut child.start_method_source {
        at(span);
    }
    if let Some(init) = &mut child.parent_init {
        at(&mut init.span);
    }
    if let Some(other) = &mut child.other_layer_start {
        at(&mut other.span);
    }
    // What a fix would edit at the call that made the pool: not the project's call.
    if let Some(made_by) = &child.made_by {
        let mut call = made_by.call;
        at(&mut call);
        if call != made_by.call {
            child.made_by = None;
        }
    }
}

fn sent_spans(sent: &mut UnserializableSent, at: &mut impl FnMut(&mut Span)) {
    at(&mut sent.span);
    if let Some(span) = &mut sent.origin {
        at(span);
    }
    if let Some(span) = &mut sent.start_method_source {
        at(span);
    }
}

/// A place a fix would edit: dropped when it lies in an installed package.
fn drop_fix_place(place: &mut Option<Span>, at: &mut impl FnMut(&mut Span)) {
    if let Some(span) = place {
        let before = *span;
        at(span);
        if *span != before {
            *place = None;
        }
    }
}
