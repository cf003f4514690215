//! GPU006's analysis: a value handed to a child (a target, a pool's task, a loader's dataset or
//! `collate_fn`...) that must be serialised to get there, and cannot be. A child started by spawn
//! or forkserver receives everything it is handed serialised; a forked one inherits it, except the
//! tasks of a pool or executor, which travel through a pipe under every start method.

use gpulint_core::analysis::{Analysis, Context, ProcessEnd};
use gpulint_core::effect::{Effect, Handed, StartMethod, Unserializable, UnserializableSent};

/// Whether the value is serialised on its way to the child.
pub fn serialised(sent: &UnserializableSent) -> bool {
    match (&sent.why, sent.handed) {
        // A forked child has the parent's main module, with the guarded definitions in it.
        (Unserializable::MainOnly | Unserializable::InteractiveMain, _) => {
            sent.start_method != StartMethod::Fork
        }
        (_, Handed::Task) => true,
        _ => sent.start_method != StartMethod::Fork,
    }
}

#[derive(Clone, Debug, Default)]
pub struct SpawnPickling;

impl Analysis for SpawnPickling {
    /// One per handover (the first way it was reached).
    type Facts = Vec<UnserializableSent>;

    fn effect(&mut self, effect: &Effect, _: &Context, facts: &mut Self::Facts) {
        if let Effect::UnserializableSent(sent) = effect {
            if serialised(sent) && !facts.iter().any(|f| f.span == sent.span) {
                facts.push(sent.clone());
            }
        }
    }

    fn join(&mut self, _: Self) {}

    fn finish(self, _: &ProcessEnd, _: &mut Self::Facts) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::at;

    fn sent(handed: Handed, why: Unserializable, start_method: StartMethod) -> Effect {
        Effect::UnserializableSent(UnserializableSent {
            span: at(3),
            handed,
            name: "a lambda".into(),
            why,
            origin: None,
            start_method,
            start_method_source: None,
        })
    }

    fn facts(effects: &[Effect]) -> Vec<UnserializableSent> {
        let mut facts = Vec::new();
        let mut a = SpawnPickling;
        for e in effects {
            a.effect(e, &Context::default(), &mut facts);
        }
        facts
    }

    #[test]
    fn a_spawned_target_is_serialised_a_forked_one_is_not() {
        let lambda = || Unserializable::Anonymous;
        assert_eq!(
            facts(&[sent(Handed::Target, lambda(), StartMethod::Spawn)]).len(),
            1
        );
        assert_eq!(
            facts(&[sent(Handed::CollateFn, lambda(), StartMethod::Forkserver)]).len(),
            1
        );
        assert!(facts(&[sent(Handed::Target, lambda(), StartMethod::Fork)]).is_empty());
    }

    #[test]
    fn pool_tasks_are_serialised_under_fork_too() {
        let found = facts(&[sent(
            Handed::Task,
            Unserializable::LocalFunction,
            StartMethod::Fork,
        )]);
        assert_eq!(found.len(), 1);
    }

    #[test]
    fn a_definition_under_the_main_guard_is_found_by_a_forked_child() {
        assert!(facts(&[sent(
            Handed::Task,
            Unserializable::MainOnly,
            StartMethod::Fork
        )])
        .is_empty());
        assert_eq!(
            facts(&[sent(
                Handed::Task,
                Unserializable::MainOnly,
                StartMethod::Spawn
            )])
            .len(),
            1
        );
    }

    #[test]
    fn a_notebooks_definition_is_found_by_a_forked_child_only() {
        let why = || Unserializable::InteractiveMain;
        assert!(facts(&[sent(Handed::Task, why(), StartMethod::Fork)]).is_empty());
        for method in [StartMethod::Spawn, StartMethod::Forkserver] {
            assert_eq!(facts(&[sent(Handed::Target, why(), method)]).len(), 1);
        }
    }

    #[test]
    fn one_fact_per_handover() {
        let e = sent(
            Handed::Target,
            Unserializable::Anonymous,
            StartMethod::Spawn,
        );
        assert_eq!(facts(&[e.clone(), e]).len(), 1);
    }
}
