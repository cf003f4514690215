//! GPU004's analysis: what a spawned child runs again while it re-imports the main module (the code
//! outside `if __name__ == "__main__":`): a process creation, which fails during the child's
//! bootstrapping, or a `set_start_method` without `force=True`, which fails because the child's
//! context is already fixed.

use gpulint_core::analysis::{Analysis, Context, ProcessEnd};
use gpulint_core::effect::{Effect, StartMethod};
use gpulint_core::source::Span;

/// What the re-import ran again.
#[derive(Clone, Debug, PartialEq)]
pub enum Rerun {
    /// A process creation under spawn or forkserver: every child would create children of its own,
    /// so Python stops it ("bootstrapping phase").
    Creation {
        start_method: StartMethod,
        /// What chose that start method (`None`: the platform default).
        start_method_source: Option<Span>,
    },
    /// `set_start_method(...)` without `force=True` and outside a `try`: the child's context is
    /// already fixed, so it raises "context has already been set".
    StartMethod { method: StartMethod },
}

#[derive(Clone, Debug, PartialEq)]
pub struct UnguardedFact {
    /// The call the re-import runs again.
    pub span: Span,
    pub rerun: Rerun,
    /// The statement of the main module's top level that reached it, for a fix that guards it.
    pub statement: Option<Span>,
}

#[derive(Clone, Debug, Default)]
pub struct MainGuard;

fn add(facts: &mut Vec<UnguardedFact>, fact: UnguardedFact) {
    if !facts.iter().any(|f| f.span == fact.span) {
        facts.push(fact);
    }
}

impl Analysis for MainGuard {
    type Facts = Vec<UnguardedFact>;

    fn effect(&mut self, effect: &Effect, cx: &Context, facts: &mut Self::Facts) {
        match effect {
            Effect::ChildStarted(child)
                if child.during_reimport && child.start_method != StartMethod::Fork =>
            {
                add(
                    facts,
                    UnguardedFact {
                        span: child.span,
                        rerun: Rerun::Creation {
                            start_method: child.start_method,
                            start_method_source: child.start_method_source,
                        },
                        statement: cx.main_statement,
                    },
                );
            }
            Effect::StartMethodSet {
                span,
                method,
                force: false,
                during_reimport: true,
                caught: false,
                only_if_unset: false,
                ..
            } => add(
                facts,
                UnguardedFact {
                    span: *span,
                    rerun: Rerun::StartMethod { method: *method },
                    statement: cx.main_statement,
                },
            ),
            _ => {}
        }
    }

    fn join(&mut self, _: Self) {}

    fn finish(self, _: &ProcessEnd, _: &mut Self::Facts) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::at;
    use gpulint_core::effect::ChildStart;

    fn child(start_method: StartMethod, during_reimport: bool) -> Effect {
        Effect::ChildStarted(ChildStart {
            span: at(10),
            launcher: &crate::testing::PROCESS,
            start_method,
            start_method_source: None,
            parent_init: None,
            code: None,
            at_module_scope: true,
            during_reimport,
            other_layer_start: None,
            default_in_entry: None,
            made_by: None,
            repeated: false,
        })
    }

    fn set(force: bool, during_reimport: bool, caught: bool) -> Effect {
        Effect::StartMethodSet {
            span: at(1),
            context: 0,
            method: StartMethod::Spawn,
            previous: StartMethod::Fork,
            at_module_scope: true,
            force,
            during_reimport,
            caught,
            only_if_unset: false,
            repeated: false,
        }
    }

    fn facts(effects: &[Effect]) -> Vec<UnguardedFact> {
        let mut facts = Vec::new();
        let mut a = MainGuard;
        for e in effects {
            a.effect(e, &Context::default(), &mut facts);
        }
        facts
    }

    #[test]
    fn a_creation_run_again_by_a_spawned_childs_reimport_is_reported_once() {
        let found = facts(&[
            child(StartMethod::Spawn, false),
            child(StartMethod::Spawn, true),
            child(StartMethod::Spawn, true),
        ]);
        let [fact] = found.try_into().unwrap();
        assert_eq!(fact.span, at(10));
    }

    #[test]
    fn forked_children_do_not_reimport_anything() {
        assert!(facts(&[child(StartMethod::Fork, true)]).is_empty());
        assert!(facts(&[child(StartMethod::Spawn, false)]).is_empty());
    }

    #[test]
    fn set_start_method_again_fails_only_without_force_and_outside_a_try() {
        assert_eq!(facts(&[set(false, true, false)]).len(), 1);
        for (force, reimport, caught) in [
            (true, true, false),
            (false, false, false),
            (false, true, true),
        ] {
            assert!(facts(&[set(force, reimport, caught)]).is_empty());
        }
    }
}
