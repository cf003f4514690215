//! GPU007's analysis: the variable that selects the visible GPUs written after this process
//! initialised the driver (the driver read it then, once), and CUDA used afterwards in the same
//! process, which the write was meant to steer. A write followed only by new processes (spawned
//! children, subprocesses inherit it) is the correct way to give each child its GPU: silent.

use gpulint_core::analysis::{Analysis, Context, ProcessEnd};
use gpulint_core::effect::{CudaInitSite, CudaUse, Effect, VisibilityWrite};
use gpulint_core::source::Span;

#[derive(Clone, Debug, PartialEq)]
pub struct LateVisibilityFact {
    /// The write the driver ignores.
    pub write: Span,
    /// Where this process initialised the driver before it.
    pub init: CudaInitSite,
    /// The initialisation ran while a spawned child re-imported the main module (or a module it
    /// imports), before the child's own code.
    pub init_at_reimport: bool,
    /// The first CUDA use after the write.
    pub used: CudaUse,
}

#[derive(Clone, Debug, Default)]
pub struct VisibleDevices {
    init: Option<CudaInitSite>,
    init_at_reimport: bool,
    /// A forked child inherits the parent's initialisation, and cannot use CUDA at all: GPU001's.
    inherited: bool,
    late_write: Option<Span>,
}

impl VisibleDevices {
    fn used(
        &mut self,
        span: Span,
        what: &std::sync::Arc<str>,
        facts: &mut Vec<LateVisibilityFact>,
    ) {
        let (Some(write), Some(init)) = (self.late_write.take(), &self.init) else {
            return;
        };
        if self.inherited || facts.iter().any(|f| f.write == write) {
            return;
        }
        facts.push(LateVisibilityFact {
            write,
            init: init.clone(),
            init_at_reimport: self.init_at_reimport,
            used: CudaUse {
                span,
                what: what.clone(),
            },
        });
    }
}

impl Analysis for VisibleDevices {
    type Facts = Vec<LateVisibilityFact>;

    fn effect(&mut self, effect: &Effect, _: &Context, facts: &mut Self::Facts) {
        match effect {
            Effect::ChildStarted(child) => {
                self.inherited = child.parent_init.is_some() && self.init.is_none();
                // What ran before this point was the re-import of the main module.
                self.init_at_reimport = self.init.is_some();
                self.late_write = None;
            }
            Effect::CudaInit { site, .. } => {
                self.used(site.span, &site.what, facts);
                if self.init.is_none() {
                    self.init = Some(site.clone());
                }
            }
            Effect::CudaObjectCreated { object, what } => self.used(object.site, what, facts),
            Effect::CudaUsed { span, what, .. } => self.used(*span, what, facts),
            // Hiding every GPU or writing back the launcher's selection narrows nothing.
            Effect::EnvWritten {
                span,
                visibility: Some(VisibilityWrite::Selects),
                ..
            } if self.init.is_some() && !self.inherited => {
                self.late_write.get_or_insert(*span);
            }
            _ => {}
        }
    }

    fn join(&mut self, other: Self) {
        if self.init.is_none() {
            self.init = other.init;
            self.init_at_reimport = other.init_at_reimport;
        }
        self.inherited |= other.inherited;
        if self.late_write.is_none() {
            self.late_write = other.late_write;
        }
    }

    fn finish(self, _: &ProcessEnd, _: &mut Self::Facts) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::at;
    use gpulint_core::effect::{ChildStart, Init, StartMethod};

    fn init(start: u32) -> Effect {
        Effect::CudaInit {
            site: CudaInitSite {
                span: at(start),
                level: Init::Driver,
                what: "init".into(),
            },
            fails_in_child: true,
        }
    }

    fn write(start: u32) -> Effect {
        Effect::EnvWritten {
            span: at(start),
            key: "VISIBLE".into(),
            value: Some("1".into()),
            visibility: Some(VisibilityWrite::Selects),
        }
    }

    fn start(parent: bool) -> Effect {
        Effect::ChildStarted(ChildStart {
            span: at(50),
            launcher: &crate::testing::PROCESS,
            start_method: if parent {
                StartMethod::Fork
            } else {
                StartMethod::Spawn
            },
            start_method_source: None,
            parent_init: parent.then(|| CudaInitSite {
                span: at(0),
                level: Init::Context,
                what: "parent".into(),
            }),
            code: None,
            at_module_scope: false,
            during_reimport: false,
            other_layer_start: None,
            default_in_entry: None,
            made_by: None,
            repeated: false,
        })
    }

    fn facts(effects: &[Effect]) -> Vec<LateVisibilityFact> {
        let mut facts = Vec::new();
        let mut a = VisibleDevices::default();
        for e in effects {
            a.effect(e, &Context::default(), &mut facts);
        }
        facts
    }

    #[test]
    fn a_write_after_init_then_a_use_is_reported_at_the_write() {
        let [fact] = facts(&[init(1), write(5), init(9)]).try_into().unwrap();
        assert_eq!(
            (fact.write, fact.init.span, fact.used.span),
            (at(5), at(1), at(9))
        );
        assert!(!fact.init_at_reimport);
    }

    #[test]
    fn a_spawned_childs_reimport_counts_as_its_initialisation() {
        let [fact] = facts(&[init(1), start(false), write(5), init(9)])
            .try_into()
            .unwrap();
        assert!(fact.init_at_reimport);
    }

    #[test]
    fn hiding_every_gpu_or_writing_back_the_launchers_selection_is_silent() {
        for kind in [VisibilityWrite::HidesAll, VisibilityWrite::Copied] {
            let write = Effect::EnvWritten {
                span: at(5),
                key: "VISIBLE".into(),
                value: None,
                visibility: Some(kind),
            };
            assert!(facts(&[init(1), write, init(9)]).is_empty());
        }
    }

    #[test]
    fn silent_before_init_without_a_later_use_or_in_a_forked_child() {
        assert!(facts(&[write(5), init(9)]).is_empty());
        assert!(facts(&[init(1), write(5)]).is_empty());
        assert!(facts(&[start(true), write(5), init(9)]).is_empty());
    }
}
