//! GPU002's analysis: a worker that chose a device of its own uses a global object placed on one
//! fixed device.

use gpulint_core::analysis::{Analysis, Context, ProcessEnd};
use gpulint_core::effect::{DeviceIndex, Effect};
use gpulint_core::source::Span;

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

/// A pinned global read by this process.
#[derive(Clone, Debug)]
struct PinnedUse {
    name: String,
    binding: Span,
    device: String,
    use_site: Span,
}

#[derive(Clone, Debug, Default)]
pub struct PinnedGlobal {
    /// Where this process chose a device of its own.
    choice: Option<Span>,
    pinned_use: Option<PinnedUse>,
}

impl Analysis for PinnedGlobal {
    type Facts = Vec<PinnedGlobalFact>;

    fn effect(&mut self, effect: &Effect, _: &Context, _: &mut Self::Facts) {
        match effect {
            Effect::DeviceBound {
                span,
                chooses: true,
                ..
            } => {
                self.choice.get_or_insert(*span);
            }
            Effect::CudaObjectCreated { object, .. } if object.index == DeviceIndex::PerWorker => {
                self.choice.get_or_insert(object.site);
            }
            Effect::CudaUsed {
                object,
                span,
                through_global: true,
                ..
            } if object.pinned && self.pinned_use.is_none() => {
                let Some((name, binding)) = &object.global else {
                    return;
                };
                let device = match object.index {
                    DeviceIndex::Fixed(i) => format!("cuda:{i}"),
                    _ => "the current device (cuda:0 in every worker that has not chosen one)"
                        .to_string(),
                };
                self.pinned_use = Some(PinnedUse {
                    name: name.to_string(),
                    binding: *binding,
                    device,
                    use_site: *span,
                });
            }
            _ => {}
        }
    }

    fn join(&mut self, other: Self) {
        self.choice = self.choice.or(other.choice);
        if self.pinned_use.is_none() {
            self.pinned_use = other.pinned_use;
        }
    }

    fn finish(self, end: &ProcessEnd, facts: &mut Self::Facts) {
        let (true, Some(choice), Some(used)) = (end.per_worker, self.choice, self.pinned_use)
        else {
            return;
        };
        if !facts.iter().any(|f| f.binding == used.binding) {
            facts.push(PinnedGlobalFact {
                binding: used.binding,
                name: used.name,
                device: used.device,
                choice,
                use_site: used.use_site,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::at;
    use gpulint_core::effect::{Binding, CudaObject};

    fn read_global(pinned: bool) -> Effect {
        Effect::CudaUsed {
            object: CudaObject {
                site: at(1),
                index: DeviceIndex::Fixed(0),
                pinned,
                process: 0,
                global: Some(("MODEL".into(), at(1))),
                by_handle: true,
            },
            span: at(30),
            what: "uses `MODEL`".into(),
            through_global: true,
        }
    }

    fn run(effects: &[Effect], per_worker: bool) -> Vec<PinnedGlobalFact> {
        let (cx, mut facts) = (Context::default(), Vec::new());
        let mut state = PinnedGlobal::default();
        for e in effects {
            state.effect(e, &cx, &mut facts);
        }
        let end = ProcessEnd {
            per_worker,
            ..ProcessEnd::default()
        };
        state.finish(&end, &mut facts);
        facts
    }

    #[test]
    fn a_worker_that_chose_its_device_and_reads_a_pinned_global() {
        let choose = Effect::DeviceBound {
            span: at(20),
            binding: Binding::Call,
            chooses: true,
        };
        let [fact] = run(&[choose.clone(), read_global(true)], true)
            .try_into()
            .unwrap();
        assert_eq!(
            (fact.binding, fact.choice, fact.use_site),
            (at(1), at(20), at(30))
        );
        assert_eq!(fact.device, "cuda:0");
        assert!(run(&[choose.clone(), read_global(true)], false).is_empty());
        assert!(run(&[choose, read_global(false)], true).is_empty());
        assert!(run(&[read_global(true)], true).is_empty());
    }
}
