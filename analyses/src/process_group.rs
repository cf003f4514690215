//! GPU003's analysis: a process group created while the rank's device is not bound, and what the
//! rank does on its implicit device (GPU 0 in every rank) before binding it.

use gpulint_core::analysis::{Analysis, Context, ProcessEnd};
use gpulint_core::effect::{Backend, Binding, CudaUse, DeviceIndex, Effect};
use gpulint_core::source::Span;

/// An `init_process_group` reached while the rank's device was not bound.
#[derive(Clone, Debug, PartialEq)]
pub struct ProcessGroupFact {
    pub span: Span,
    pub backend: Backend,
    /// The first collective or implicit-device allocation before the device was bound.
    pub early_use: Option<CudaUse>,
    /// The binding that came after the process group, if any.
    pub late_bind: Option<Span>,
    /// Whether this process initialised CUDA at all.
    pub cuda_used: bool,
}

/// How a process group created before the binding fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupVerdict {
    /// Something ran on GPU 0 before the binding, or the device is never bound.
    Fails,
    /// The binding follows with nothing in between: it works while nothing is added there.
    OrderOnly,
}

impl ProcessGroupFact {
    /// The verdict; `None` when the default backend is not NCCL here (no CUDA in the process).
    pub fn verdict(&self) -> Option<GroupVerdict> {
        if self.backend == Backend::Default && !self.cuda_used {
            return None;
        }
        Some(match (&self.early_use, self.late_bind) {
            (None, Some(_)) => GroupVerdict::OrderOnly,
            _ => GroupVerdict::Fails,
        })
    }
}

/// A group created while the device was not bound, still waiting for its verdict.
#[derive(Clone, Debug)]
struct Pending {
    span: Span,
    backend: Backend,
    early_use: Option<CudaUse>,
    late_bind: Option<Span>,
    /// The function that created the group, and whether that same function bound the device late.
    creator: Option<Span>,
    bound_by_creator: bool,
}

#[derive(Clone, Debug, Default)]
pub struct GroupBeforeBinding {
    /// The process bound its device (by a call or by narrowed visibility).
    bound: bool,
    group: Option<Pending>,
}

impl GroupBeforeBinding {
    /// Something ran on the implicit device: the first such use before the binding is the evidence.
    fn early(&mut self, span: Span, what: impl Into<std::sync::Arc<str>>) {
        if self.bound {
            return;
        }
        if let Some(group) = &mut self.group {
            if group.late_bind.is_none() && group.early_use.is_none() {
                group.early_use = Some(CudaUse {
                    span,
                    what: what.into(),
                });
            }
        }
    }
}

impl Analysis for GroupBeforeBinding {
    type Facts = Vec<ProcessGroupFact>;

    fn effect(&mut self, effect: &Effect, cx: &Context, _: &mut Self::Facts) {
        match effect {
            Effect::ProcessGroupCreated {
                span,
                backend,
                device_given: false,
            } if *backend != Backend::Cpu && !self.bound => {
                self.group = Some(Pending {
                    span: *span,
                    backend: *backend,
                    early_use: None,
                    late_bind: None,
                    creator: cx.function,
                    bound_by_creator: false,
                });
            }
            Effect::DeviceBound { span, binding, .. } => {
                if self.bound {
                    return;
                }
                self.bound = true;
                if let (Binding::Call, Some(group)) = (binding, &mut self.group) {
                    if group.late_bind.is_none() {
                        group.late_bind = Some(*span);
                        group.bound_by_creator = cx.function == group.creator;
                    }
                }
            }
            Effect::CollectiveRun {
                span,
                name,
                explicit_device: false,
            } => {
                self.early(
                    *span,
                    format!("`{name}` runs on the current device, GPU 0 in every rank"),
                );
            }
            Effect::CudaObjectCreated { object, what } if object.index == DeviceIndex::Current => {
                self.early(object.site, what.clone());
            }
            _ => {}
        }
    }

    fn join(&mut self, other: Self) {
        self.bound |= other.bound;
        match (&mut self.group, other.group) {
            (None, g) => self.group = g,
            (Some(mine), Some(theirs)) if mine.span == theirs.span => {
                if mine.early_use.is_none() {
                    mine.early_use = theirs.early_use;
                }
                if mine.late_bind.is_none() {
                    mine.late_bind = theirs.late_bind;
                    mine.bound_by_creator = theirs.bound_by_creator;
                }
            }
            _ => {}
        }
    }

    /// With a group pending, what an import does on the implicit device is evidence: run it here.
    fn imports_like_clean(&self) -> bool {
        self.group.is_none()
    }

    fn finish(self, end: &ProcessEnd, facts: &mut Self::Facts) {
        let Some(group) = self.group else {
            return;
        };
        // A function with callers in the program: a caller may bind the device before calling
        // it, and the caller's own analysis follows the call with that context. Unless the
        // function that creates the group binds the device itself, after it: then nobody
        // bound it before.
        if end.partial && !group.bound_by_creator {
            return;
        }
        let fact = ProcessGroupFact {
            span: group.span,
            backend: group.backend,
            early_use: group.early_use,
            late_bind: group.late_bind,
            cuda_used: end.cuda_initialised,
        };
        let fails = |f: &ProcessGroupFact| f.early_use.is_some() || f.late_bind.is_none();
        match facts.iter_mut().find(|f| f.span == fact.span) {
            Some(old) => {
                if fails(&fact) && !fails(old)
                    || (old.early_use.is_none() && fact.early_use.is_some())
                {
                    *old = fact;
                } else {
                    old.cuda_used |= fact.cuda_used;
                }
            }
            None => facts.push(fact),
        }
    }
}
