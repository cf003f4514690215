//! GPU010's analysis: a worker that picks a GPU of its own for some objects (`.to(f"cuda:{rank}")`)
//! but creates others on the current device (`.cuda()`, `device="cuda"`) without ever binding it:
//! those land on GPU 0 in every worker. A rank with an NCCL process group is GPU003's.

use std::sync::Arc;

use gpulint_core::analysis::{Analysis, Context, ProcessEnd};
use gpulint_core::effect::{Backend, DeviceIndex, Effect, Launcher};
use gpulint_core::source::Span;

#[derive(Clone, Debug, PartialEq)]
pub struct ImplicitDeviceFact {
    /// The first object placed on the current device while it was not bound.
    pub span: Span,
    pub what: Arc<str>,
    /// Where the worker placed something on a GPU of its own.
    pub chosen: Span,
}

/// What one path through the worker has placed: (on a GPU of its own, on the current device).
type Shape = (bool, bool);

#[derive(Clone, Debug, Default)]
pub struct ImplicitDevice {
    /// The current device was bound (a call, or narrowed visibility): "cuda" is this worker's GPU.
    bound: bool,
    chosen: Option<Span>,
    implicit: Option<(Span, Arc<str>)>,
    /// The shapes of the paths so far (at most four): a choice on one branch and a bare placement
    /// on the other (`if distributed: ... else: ...`) are no worker doing both. Empty stands for
    /// one path that placed nothing.
    paths: Vec<Shape>,
    /// An NCCL (or default) process group: GPU003 judges the binding.
    group: bool,
    child: Option<&'static Launcher>,
}

impl Analysis for ImplicitDevice {
    type Facts = Vec<ImplicitDeviceFact>;

    fn effect(&mut self, effect: &Effect, _: &Context, _: &mut Self::Facts) {
        match effect {
            // What a spawned child's re-import placed is module-level state: a pinned global
            // (GPU002) or a visibility written too late (GPU007), judged there.
            Effect::ChildStarted(child) => {
                self.child = Some(child.launcher);
                self.implicit = None;
                self.each(|p| p.1 = false);
            }
            // Code not analysed may have bound the device: what follows proves nothing.
            Effect::DeviceBound { .. } | Effect::NotFollowed { .. } => self.bound = true,
            Effect::ProcessGroupCreated {
                backend: Backend::Nccl | Backend::Default,
                ..
            } => self.group = true,
            Effect::CudaObjectCreated { object, what } => match object.index {
                DeviceIndex::PerWorker => {
                    self.chosen.get_or_insert(object.site);
                    self.each(|p| p.0 = true);
                }
                DeviceIndex::Current if !self.bound => {
                    if self.implicit.is_none() {
                        self.implicit = Some((object.site, what.clone()));
                    }
                    self.each(|p| p.1 = true);
                }
                _ => {}
            },
            _ => {}
        }
    }

    fn join(&mut self, other: Self) {
        // A binding on either path is taken as made: a finding must hold on every path.
        self.bound |= other.bound;
        self.chosen = self.chosen.or(other.chosen);
        if self.implicit.is_none() {
            self.implicit = other.implicit;
        }
        if self.paths.is_empty() {
            self.paths.push((false, false));
        }
        let others = if other.paths.is_empty() {
            vec![(false, false)]
        } else {
            other.paths
        };
        for path in others {
            self.add_path(path);
        }
        self.group |= other.group;
        self.child = self.child.or(other.child);
    }

    fn finish(self, end: &ProcessEnd, facts: &mut Self::Facts) {
        // A loader's workers (which get no GPU of their own), a function whose callers may have
        // bound the device, and ranks with a process group are not judged here.
        let loader = self.child.is_some_and(|l| l.data_workers);
        if !end.per_worker || end.partial || loader || self.group {
            return;
        }
        if !self.paths.is_empty() && !self.paths.contains(&(true, true)) {
            return;
        }
        let (Some(chosen), Some((span, what))) = (self.chosen, self.implicit) else {
            return;
        };
        // A device index may come from a name alone (`device=device` in a library helper): only
        // a choice in the same file as the placement shows the code means one GPU per worker.
        if chosen.file == span.file && !facts.iter().any(|f| f.span == span) {
            facts.push(ImplicitDeviceFact { span, what, chosen });
        }
    }
}

impl ImplicitDevice {
    /// Applies `f` to every path's shape, then merges the paths it made alike.
    fn each(&mut self, f: impl Fn(&mut Shape)) {
        if self.paths.is_empty() {
            self.paths.push((false, false));
        }
        for mut path in std::mem::take(&mut self.paths) {
            f(&mut path);
            self.add_path(path);
        }
    }

    fn add_path(&mut self, path: Shape) {
        if !self.paths.contains(&path) {
            self.paths.push(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{at, facts_of, worker_end};
    use gpulint_core::effect::{Binding, CudaObject};

    fn object(start: u32, index: DeviceIndex) -> Effect {
        Effect::CudaObjectCreated {
            object: CudaObject {
                site: at(start),
                index,
                pinned: false,
                process: 1,
                global: None,
                by_handle: true,
            },
            what: "x".into(),
        }
    }

    fn bind() -> Effect {
        Effect::DeviceBound {
            span: at(1),
            binding: Binding::Call,
            chooses: true,
        }
    }

    fn run(effects: &[Effect], per_worker: bool) -> Vec<ImplicitDeviceFact> {
        facts_of::<ImplicitDevice>(effects, worker_end(per_worker))
    }

    #[test]
    fn a_current_device_object_beside_a_chosen_one_is_reported() {
        let facts = run(
            &[
                object(3, DeviceIndex::PerWorker),
                object(5, DeviceIndex::Current),
            ],
            true,
        );
        assert_eq!(facts.len(), 1);
        assert_eq!((facts[0].span, facts[0].chosen), (at(5), at(3)));
    }

    #[test]
    fn a_bound_worker_or_one_process_is_silent() {
        let bound = [
            bind(),
            object(3, DeviceIndex::PerWorker),
            object(5, DeviceIndex::Current),
        ];
        assert!(run(&bound, true).is_empty());
        let one = [
            object(3, DeviceIndex::PerWorker),
            object(5, DeviceIndex::Current),
        ];
        assert!(run(&one, false).is_empty());
    }

    #[test]
    fn code_not_analysed_before_the_object_may_have_bound_the_device() {
        let unseen = Effect::NotFollowed { function: at(9) };
        let after = [
            object(3, DeviceIndex::PerWorker),
            unseen.clone(),
            object(5, DeviceIndex::Current),
        ];
        assert!(run(&after, true).is_empty());
        let before = [
            object(3, DeviceIndex::PerWorker),
            object(5, DeviceIndex::Current),
            unseen,
        ];
        assert_eq!(run(&before, true).len(), 1);
    }

    #[test]
    fn a_choice_and_a_bare_placement_on_separate_branches_are_no_finding() {
        let chosen = facts_of_paths(
            &[object(3, DeviceIndex::PerWorker)],
            &[object(5, DeviceIndex::Current)],
            &[],
        );
        assert!(chosen.is_empty());
        // After the branches, a bare placement pairs with the choice of the one that made it;
        // the finding cites the first bare placement, as it does on one path.
        let later = facts_of_paths(
            &[object(3, DeviceIndex::PerWorker)],
            &[object(5, DeviceIndex::Current)],
            &[object(7, DeviceIndex::Current)],
        );
        assert_eq!((later[0].span, later[0].chosen), (at(5), at(3)));
        // Joining a state with itself changes nothing.
        let mut a = ImplicitDevice::default();
        a.effect(
            &object(3, DeviceIndex::PerWorker),
            &Context::default(),
            &mut Vec::new(),
        );
        a.join(a.clone());
        assert_eq!(a.paths.len(), 1);
    }

    #[test]
    fn an_inherited_device_is_no_choice() {
        let effects = [
            object(3, DeviceIndex::Inherited),
            object(5, DeviceIndex::Current),
        ];
        assert!(run(&effects, true).is_empty());
    }

    /// Runs `a` and `b` as the two branches of an `if`, then `after`.
    fn facts_of_paths(a: &[Effect], b: &[Effect], after: &[Effect]) -> Vec<ImplicitDeviceFact> {
        let cx = Context::default();
        let mut facts = Vec::new();
        let mut left = ImplicitDevice::default();
        let mut right = ImplicitDevice::default();
        a.iter().for_each(|e| left.effect(e, &cx, &mut facts));
        b.iter().for_each(|e| right.effect(e, &cx, &mut facts));
        left.join(right);
        after.iter().for_each(|e| left.effect(e, &cx, &mut facts));
        left.finish(&worker_end(true), &mut facts);
        facts
    }

    #[test]
    fn only_the_current_device_is_not_enough() {
        assert!(run(&[object(5, DeviceIndex::Current)], true).is_empty());
    }
}
