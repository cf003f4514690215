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
        match (&self.early_use, self.late_bind) {
            (Some(_), _) => Some(GroupVerdict::Fails),
            (None, Some(_)) => Some(GroupVerdict::OrderOnly),
            // Never bound, and nothing ran on the implicit device: every tensor named its GPU.
            (None, None) => None,
        }
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
    /// The depth of the code that created the group, and the call that entered its function.
    depth: usize,
    entered_at: Option<Span>,
    /// Code that was not analysed ran after the group, before any use of GPU 0: it may have bound
    /// the device, so "never bound" cannot be said.
    unseen: bool,
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

/// Where the group's own code binds the device: a binding made inside a call from the function that
/// created the group is cited at that call (the statement a user moves), not inside the callee.
fn binding_site(group: &Pending, span: Span, cx: &Context) -> Span {
    let same_frame = cx.calls.len() > group.depth
        && (group.depth == 0 || cx.calls[group.depth - 1] == group.entered_at);
    match cx.calls.get(group.depth) {
        Some(Some(call)) if same_frame => *call,
        _ => span,
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
            } if matches!(backend, Backend::Nccl | Backend::Default) && !self.bound => {
                self.group = Some(Pending {
                    span: *span,
                    backend: *backend,
                    early_use: None,
                    late_bind: None,
                    creator: cx.function,
                    bound_by_creator: false,
                    depth: cx.calls.len(),
                    entered_at: cx.calls.last().copied().flatten(),
                    unseen: false,
                });
            }
            Effect::DeviceBound { span, binding, .. } => {
                if self.bound {
                    return;
                }
                self.bound = true;
                if let (Binding::Call, Some(group)) = (binding, &mut self.group) {
                    if group.late_bind.is_none() {
                        group.late_bind = Some(binding_site(group, *span, cx));
                        group.bound_by_creator = cx.function == group.creator;
                    }
                }
            }
            // Taken as a binding that names no place: nothing after it is evidence, and a group
            // waiting for its binding is not judged "never bound".
            Effect::NotFollowed { .. } if !self.bound => {
                if let Some(group) = &mut self.group {
                    group.unseen |= group.early_use.is_none() && group.late_bind.is_none();
                }
                self.bound = true;
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
                mine.unseen |= theirs.unseen;
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
        if group.unseen && group.early_use.is_none() {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::at;

    fn group_at(start: u32) -> Effect {
        Effect::ProcessGroupCreated {
            span: at(start),
            backend: Backend::Nccl,
            device_given: false,
        }
    }

    fn bind_at(start: u32) -> Effect {
        Effect::DeviceBound {
            span: at(start),
            binding: Binding::Call,
            chooses: true,
        }
    }

    /// Runs `effects` in one process, all in one function, and ends it.
    fn run(effects: &[Effect], end: ProcessEnd) -> Vec<ProcessGroupFact> {
        let cx = Context {
            function: Some(at(100)),
            ..Context::default()
        };
        let mut state = GroupBeforeBinding::default();
        let mut facts = Vec::new();
        for e in effects {
            state.effect(e, &cx, &mut facts);
        }
        state.finish(&end, &mut facts);
        facts
    }

    #[test]
    fn a_binding_inside_a_call_is_cited_at_the_call_in_the_groups_function() {
        let finish = |state: GroupBeforeBinding| {
            let mut facts = Vec::new();
            state.finish(&ProcessEnd::default(), &mut facts);
            facts
        };
        let entry = [Some(at(50))];
        let deeper = [Some(at(50)), Some(at(7)), Some(at(60))];
        let elsewhere = [Some(at(51)), Some(at(8))];
        let mut facts = Vec::new();
        for (calls, cited) in [
            (&deeper[..], at(7)),
            (&elsewhere[..], at(9)),
            (&entry[..], at(9)),
        ] {
            let mut state = GroupBeforeBinding::default();
            let cx = |calls| Context {
                calls,
                ..Context::default()
            };
            state.effect(&group_at(1), &cx(&entry), &mut facts);
            state.effect(&bind_at(9), &cx(calls), &mut facts);
            let [fact] = finish(state).try_into().unwrap();
            assert_eq!(fact.late_bind, Some(cited), "calls {calls:?}");
        }
    }

    #[test]
    fn binding_first_or_a_device_on_the_call_leaves_no_fact() {
        assert!(run(&[bind_at(1), group_at(2)], ProcessEnd::default()).is_empty());
        let given = Effect::ProcessGroupCreated {
            span: at(1),
            backend: Backend::Nccl,
            device_given: true,
        };
        assert!(run(&[given], ProcessEnd::default()).is_empty());
    }

    #[test]
    fn the_first_collective_before_the_binding_is_the_evidence() {
        let barrier = Effect::CollectiveRun {
            span: at(3),
            name: "barrier".into(),
            explicit_device: false,
        };
        let [fact] = run(&[group_at(1), barrier, bind_at(5)], ProcessEnd::default())
            .try_into()
            .unwrap();
        assert_eq!(fact.early_use.as_ref().map(|u| u.span), Some(at(3)));
        assert_eq!(fact.late_bind, Some(at(5)));
        assert_eq!(fact.verdict(), Some(GroupVerdict::Fails));
    }

    #[test]
    fn narrowed_visibility_binds_without_being_a_late_binding() {
        let narrowed = Effect::DeviceBound {
            span: at(4),
            binding: Binding::Narrowed,
            chooses: false,
        };
        let [fact] = run(&[group_at(1), narrowed], ProcessEnd::default())
            .try_into()
            .unwrap();
        assert_eq!(fact.late_bind, None);
    }

    #[test]
    fn a_partial_run_is_judged_only_when_the_creator_binds_late() {
        let partial = ProcessEnd {
            partial: true,
            ..ProcessEnd::default()
        };
        assert!(run(&[group_at(1)], partial).is_empty());
        let [fact] = run(&[group_at(1), bind_at(2)], partial).try_into().unwrap();
        assert_eq!(fact.verdict(), Some(GroupVerdict::OrderOnly));
    }

    #[test]
    fn code_not_analysed_may_have_bound_the_device_but_evidence_before_it_stands() {
        let unseen = Effect::NotFollowed { function: at(50) };
        let barrier = |start| Effect::CollectiveRun {
            span: at(start),
            name: "barrier".into(),
            explicit_device: false,
        };
        let end = ProcessEnd::default();
        // The cut call may hold the binding: neither "never bound" nor a later use is a finding.
        assert!(run(&[group_at(1), unseen.clone()], end).is_empty());
        assert!(run(&[group_at(1), unseen.clone(), barrier(3)], end).is_empty());
        assert!(run(&[unseen.clone(), group_at(2), barrier(3)], end).is_empty());
        // A collective that already ran on GPU 0 did so whatever the cut call does later.
        let [fact] = run(&[group_at(1), barrier(2), unseen], end)
            .try_into()
            .unwrap();
        assert_eq!(fact.early_use.map(|u| u.span), Some(at(2)));
    }

    #[test]
    fn a_join_keeps_the_group_and_the_evidence_of_either_path() {
        let cx = Context::default();
        let mut facts = Vec::new();
        let mut a = GroupBeforeBinding::default();
        a.effect(&group_at(1), &cx, &mut facts);
        let mut b = a.clone();
        b.effect(&bind_at(7), &cx, &mut facts);
        a.join(b);
        assert!(a.bound);
        assert_eq!(a.group.as_ref().and_then(|g| g.late_bind), Some(at(7)));
        assert!(!a.imports_like_clean());
    }
}
