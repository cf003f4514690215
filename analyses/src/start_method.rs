//! GPU005's analysis: `set_start_method` on a default context whose start method is already fixed
//! (by an earlier call, `get_start_method()`, or a lock or queue made with it). Without `force=True`
//! it raises "context has already been set"; with it, objects made under the old start method stay
//! behind. A spawned child's re-import is GPU004's.

use std::sync::Arc;

use gpulint_core::analysis::{Analysis, Context, ProcessEnd};
use gpulint_core::effect::{Effect, StartMethod};
use gpulint_core::source::Span;

/// What fixed a context's start method first.
#[derive(Clone, Debug, PartialEq)]
pub struct Fixed {
    pub span: Span,
    pub what: Arc<str>,
    /// Objects bound to the old start method exist (a queue, a lock), not only a query.
    pub creates_objects: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct AlreadyFixedFact {
    /// The `set_start_method` call.
    pub span: Span,
    pub method: StartMethod,
    pub fixed: Fixed,
    /// `force=True`: it does not raise, but what was made before keeps the old start method.
    pub forced: bool,
}

impl AlreadyFixedFact {
    /// Worth reporting: an unforced call raises (unless a `try` catches it); a forced one matters
    /// only when objects of the old start method exist.
    pub fn hazard(&self) -> bool {
        !self.forced || self.fixed.creates_objects
    }
}

#[derive(Clone, Debug, Default)]
pub struct StartMethodFixed {
    /// Per default context: what fixed it.
    fixed: Vec<(u32, Fixed)>,
    /// A spawned child's contexts were all fixed when it started (`spawn.prepare`).
    started_fixed: Option<Fixed>,
    /// Forced calls after objects of the old method were made: they matter once a child starts
    /// (the objects can reach it only then).
    pending: Vec<AlreadyFixedFact>,
}

/// Adds `fact` unless its call is reported already.
fn report(facts: &mut Vec<AlreadyFixedFact>, fact: AlreadyFixedFact) {
    if !facts.iter().any(|f| f.span == fact.span) {
        facts.push(fact);
    }
}

impl StartMethodFixed {
    fn fix(&mut self, context: u32, fixed: Fixed) {
        match self.fixed.iter_mut().find(|(c, _)| *c == context) {
            // A later object made with the context still counts as objects of it.
            Some((_, old)) => old.creates_objects |= fixed.creates_objects,
            None => self.fixed.push((context, fixed)),
        }
    }
}

impl Analysis for StartMethodFixed {
    type Facts = Vec<AlreadyFixedFact>;

    fn effect(&mut self, effect: &Effect, _: &Context, facts: &mut Self::Facts) {
        match effect {
            Effect::ChildStarted(_) if !self.pending.is_empty() => {
                for fact in std::mem::take(&mut self.pending) {
                    report(facts, fact);
                }
                self.effect(effect, &Context::default(), facts);
            }
            Effect::ChildStarted(child) if child.start_method != StartMethod::Fork => {
                self.started_fixed = Some(Fixed {
                    span: child.span,
                    what: format!(
                        "this child was started by {} here, which fixed its start method first",
                        child.start_method.name()
                    )
                    .into(),
                    creates_objects: false,
                });
            }
            Effect::StartMethodFixed {
                span,
                context,
                what,
                creates_objects,
            } => self.fix(
                *context,
                Fixed {
                    span: *span,
                    what: what.clone(),
                    creates_objects: *creates_objects,
                },
            ),
            Effect::StartMethodSet {
                span,
                context,
                method,
                previous,
                force,
                during_reimport: false,
                caught,
                only_if_unset,
                repeated,
                ..
            } => {
                let earlier = self
                    .fixed
                    .iter()
                    .find(|(c, _)| c == context)
                    .map(|(_, f)| f);
                // The same call run again (a setup function called twice) is guarded somehow, or
                // it would fail on every run: not reported. Under `if get_start_method(
                // allow_none=True) is None:` the call never runs where the method is fixed.
                let earlier = earlier.filter(|f| f.span != *span && !*only_if_unset);
                // In a loop, the call itself fixed the method on the pass before.
                let again = Fixed {
                    span: *span,
                    what: "this same call, on the previous pass of the loop that runs it".into(),
                    creates_objects: false,
                };
                let again = (*repeated && !*force && !*only_if_unset).then_some(&again);
                let earlier = earlier.or(again);
                // Forcing the method already in force changes nothing.
                let changes = !*force || previous != method;
                if let Some(fixed) = earlier.or(self.started_fixed.as_ref()).filter(|_| changes) {
                    let fact = AlreadyFixedFact {
                        span: *span,
                        method: *method,
                        fixed: fixed.clone(),
                        forced: *force,
                    };
                    if *force && fact.hazard() {
                        self.pending.push(fact);
                    } else if !*caught && fact.hazard() {
                        report(facts, fact);
                    }
                }
                self.fix(
                    *context,
                    Fixed {
                        span: *span,
                        what: format!("`set_start_method(\"{}\")` fixed it", method.name()).into(),
                        creates_objects: false,
                    },
                );
            }
            _ => {}
        }
    }

    fn join(&mut self, other: Self) {
        if self.started_fixed.is_none() {
            self.started_fixed = other.started_fixed;
        }
        for fact in other.pending {
            if !self.pending.iter().any(|f| f.span == fact.span) {
                self.pending.push(fact);
            }
        }
        for (context, fixed) in other.fixed {
            self.fix(context, fixed);
        }
    }

    /// A forked child inherits the parent's fixed contexts.
    fn forked(&self) -> Self {
        self.clone()
    }

    /// A spawned child shares nothing, but its start is what the old method's objects can reach.
    fn spawned(&self) -> Self {
        StartMethodFixed {
            pending: self.pending.clone(),
            ..Self::default()
        }
    }

    fn finish(self, _: &ProcessEnd, _: &mut Self::Facts) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::at;

    fn fixed(start: u32, creates_objects: bool) -> Effect {
        Effect::StartMethodFixed {
            span: at(start),
            context: 0,
            what: "queue".into(),
            creates_objects,
        }
    }

    fn set(start: u32, force: bool, caught: bool) -> Effect {
        Effect::StartMethodSet {
            span: at(start),
            context: 0,
            method: StartMethod::Spawn,
            previous: StartMethod::Fork,
            at_module_scope: true,
            force,
            during_reimport: false,
            caught,
            only_if_unset: false,
            repeated: false,
        }
    }

    fn facts(effects: &[Effect]) -> Vec<AlreadyFixedFact> {
        let mut facts = Vec::new();
        let mut a = StartMethodFixed::default();
        for e in effects {
            a.effect(e, &Context::default(), &mut facts);
        }
        facts
    }

    #[test]
    fn a_second_unforced_call_is_reported_with_the_first() {
        let [fact] = facts(&[set(1, false, false), set(5, false, false)])
            .try_into()
            .unwrap();
        assert_eq!((fact.span, fact.fixed.span), (at(5), at(1)));
    }

    #[test]
    fn force_matters_only_after_objects_of_the_old_method_exist_and_a_child_starts() {
        let child = crate::testing::child_started(&crate::testing::PROCESS, StartMethod::Spawn, 9);
        assert!(facts(&[fixed(1, false), set(5, true, false), child.clone()]).is_empty());
        assert!(facts(&[fixed(1, true), set(5, true, false)]).is_empty());
        assert_eq!(
            facts(&[fixed(1, true), set(5, true, false), child]).len(),
            1
        );
    }

    #[test]
    fn forcing_the_method_already_in_force_is_silent() {
        let same = Effect::StartMethodSet {
            span: at(5),
            context: 0,
            method: StartMethod::Fork,
            previous: StartMethod::Fork,
            at_module_scope: false,
            force: true,
            during_reimport: false,
            caught: false,
            only_if_unset: false,
            repeated: false,
        };
        let child = crate::testing::child_started(&crate::testing::PROCESS, StartMethod::Spawn, 9);
        assert!(facts(&[fixed(1, true), same, child]).is_empty());
    }

    #[test]
    fn a_first_call_or_a_caught_one_is_silent() {
        assert!(facts(&[set(5, false, false)]).is_empty());
        assert!(facts(&[set(5, false, false), set(5, false, false)]).is_empty());
        assert!(facts(&[fixed(1, true), set(5, false, true)]).is_empty());
    }

    #[test]
    fn an_unforced_call_in_a_loop_fixes_the_method_for_its_next_pass() {
        let looped = |force: bool| Effect::StartMethodSet {
            span: at(5),
            context: 0,
            method: StartMethod::Fork,
            previous: StartMethod::Fork,
            at_module_scope: false,
            force,
            during_reimport: false,
            caught: false,
            only_if_unset: false,
            repeated: true,
        };
        let [fact] = facts(&[looped(false)]).try_into().unwrap();
        assert_eq!((fact.span, fact.fixed.span), (at(5), at(5)));
        assert!(facts(&[looped(true)]).is_empty());
    }

    #[test]
    fn a_call_that_runs_only_while_unset_is_silent() {
        let guarded = Effect::StartMethodSet {
            span: at(5),
            context: 0,
            method: StartMethod::Spawn,
            previous: StartMethod::Fork,
            at_module_scope: false,
            force: false,
            during_reimport: false,
            caught: false,
            only_if_unset: true,
            repeated: false,
        };
        assert!(facts(&[fixed(1, true), guarded]).is_empty());
    }
}
