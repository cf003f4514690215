//! GPU102's analysis: a global that holds a CUDA object (a context, device or stream), given its
//! value once per process, and then either handed out for devices it is not on or used by a child
//! forked after the parent gave it that value.

use std::sync::Arc;

use gpulint_core::analysis::{Analysis, Context, ProcessEnd};
use gpulint_core::effect::Effect;
use gpulint_core::source::Span;

/// How the global is misused.
#[derive(Clone, Debug, PartialEq)]
pub enum OnceMisuse {
    /// A function asked for device `ordinal` returns it (`returned`: the function).
    ReturnedForAnyDevice { ordinal: Span, returned: Span },
    /// A child forked after the parent created it uses it.
    UsedInForkedChild { fork: Span, use_site: Span },
}

#[derive(Clone, Debug, PartialEq)]
pub struct OnceGlobalFact {
    /// The global's declaration.
    pub binding: Span,
    pub name: String,
    pub misuse: OnceMisuse,
}

#[derive(Clone, Debug, Default)]
pub struct OnceGlobal {
    /// The fork point, in a forked child.
    fork: Option<Span>,
    /// Globals whose CUDA object this process created itself (by their declarations).
    own: Vec<Span>,
}

fn add(facts: &mut Vec<OnceGlobalFact>, name: &Arc<str>, binding: Span, misuse: OnceMisuse) {
    if !facts.iter().any(|f| f.binding == binding) {
        facts.push(OnceGlobalFact {
            binding,
            name: name.to_string(),
            misuse,
        });
    }
}

impl Analysis for OnceGlobal {
    type Facts = Vec<OnceGlobalFact>;

    fn effect(&mut self, effect: &Effect, _: &Context, facts: &mut Self::Facts) {
        match effect {
            Effect::ChildStarted(child) => {
                self.fork = Some(child.span);
                self.own.clear();
            }
            Effect::CudaObjectCreated { object, .. } => {
                if let Some((_, binding)) = &object.global {
                    if !self.own.contains(binding) {
                        self.own.push(*binding);
                    }
                }
            }
            Effect::CudaUsed {
                object,
                span,
                through_global: true,
                ..
            } => {
                let (Some(fork), Some((name, binding))) = (self.fork, &object.global) else {
                    return;
                };
                if !self.own.contains(binding) {
                    let misuse = OnceMisuse::UsedInForkedChild {
                        fork,
                        use_site: *span,
                    };
                    add(facts, name, *binding, misuse);
                }
            }
            Effect::CachedDeviceReturned {
                span,
                global: (name, binding),
                ordinal,
            } => {
                let misuse = OnceMisuse::ReturnedForAnyDevice {
                    ordinal: *ordinal,
                    returned: *span,
                };
                add(facts, name, *binding, misuse);
            }
            _ => {}
        }
    }

    fn join(&mut self, other: Self) {
        self.fork = self.fork.or(other.fork);
        for b in other.own {
            if !self.own.contains(&b) {
                self.own.push(b);
            }
        }
    }

    fn forked(&self) -> Self {
        OnceGlobal::default()
    }

    fn finish(self, _: &ProcessEnd, _: &mut Self::Facts) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{at, child_started};
    use gpulint_core::effect::{CudaObject, DeviceIndex, StartMethod};

    fn object(global: bool) -> CudaObject {
        CudaObject {
            site: at(1),
            index: DeviceIndex::Fixed(0),
            pinned: true,
            process: 0,
            global: global.then(|| ("CTX".into(), at(2))),
            by_handle: false,
        }
    }

    fn used() -> Effect {
        Effect::CudaUsed {
            object: object(true),
            span: at(30),
            what: "use".into(),
            through_global: true,
        }
    }

    fn fork() -> Effect {
        child_started(&crate::testing::FORK, StartMethod::Fork, 20)
    }

    fn run(effects: &[Effect]) -> Vec<OnceGlobalFact> {
        let (cx, mut facts) = (Context::default(), Vec::new());
        let mut state = OnceGlobal::default();
        for e in effects {
            state.effect(e, &cx, &mut facts);
        }
        facts
    }

    #[test]
    fn a_child_using_the_parents_global_is_a_fact_and_its_own_is_not() {
        let [fact] = run(&[fork(), used()]).try_into().unwrap();
        assert_eq!(fact.binding, at(2));
        let created = Effect::CudaObjectCreated {
            object: object(true),
            what: "made".into(),
        };
        assert!(run(&[fork(), created, used()]).is_empty());
        assert!(run(&[used()]).is_empty());
    }

    #[test]
    fn a_cached_device_returned_is_a_fact_once() {
        let returned = Effect::CachedDeviceReturned {
            span: at(5),
            global: ("CTX".into(), at(2)),
            ordinal: at(6),
        };
        assert_eq!(run(&[returned.clone(), returned]).len(), 1);
    }
}
