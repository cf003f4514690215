//! The seam between frontends and analyses. A frontend keeps one state of each analysis per
//! simulated process and calls these methods; it never looks inside. Every operation a process
//! undergoes (an effect, a branch merge, a fork, an import from the cache, its end) is one call here,
//! written once in the frontend for every analysis.

use crate::effect::Effect;
use crate::source::Span;

/// Where an effect happened, beyond its span.
#[derive(Clone, Copy, Debug, Default)]
pub struct Context<'a> {
    /// The function whose code produced the effect (its definition's name span), if any.
    pub function: Option<Span>,
    /// The code runs on one rank of several only: it sits under a test that compares the rank
    /// with a constant (`if rank == 0:`), so the other ranks skip it.
    pub one_rank: bool,
    /// The calls that led to the effect, outermost first: `calls[d]` entered the function running
    /// at depth `d` (`None`: called by the analysis, as an entry or a child's target). Its length
    /// is the depth of the code that produced the effect.
    pub calls: &'a [Option<Span>],
    /// The statement of the main module's top level that is running, itself or through the calls
    /// it made (`None` in code run otherwise: an entry point, a child's target).
    pub main_statement: Option<Span>,
}

/// How a simulated process ended, for the verdicts taken then.
#[derive(Clone, Copy, Debug, Default)]
pub struct ProcessEnd {
    /// Analysed from a function whose callers elsewhere may have prepared the process (bound the
    /// device) first: verdicts that depend on what happened before the function are withheld.
    pub partial: bool,
    /// A worker process: a child, or a rank of a distributed job.
    pub per_worker: bool,
    /// The process initialised CUDA at some point.
    pub cuda_initialised: bool,
}

/// One hazard's analysis: its per-process state (`Self`) and the facts it emits (`Facts`).
pub trait Analysis: Clone + Default + std::fmt::Debug + Send + Sync + 'static {
    /// What it found over a whole run (every process of one main program).
    type Facts: Clone + Default + std::fmt::Debug + PartialEq + Send;

    /// Receives the next effect of this process.
    fn effect(&mut self, effect: &Effect, cx: &Context, facts: &mut Self::Facts);

    /// Merges the state of another path through the same code (the other branch of an `if`).
    /// Idempotent: joining a state equal to this one leaves it unchanged ([`Shared`] relies on it).
    fn join(&mut self, other: Self);

    /// Adds the state a module's import left in a clean process (the import cache) to this one.
    fn attach(&mut self, imported: &Self) {
        self.join(imported.clone());
    }

    /// The state a child forked from this process starts with; `ChildStarted` follows.
    fn forked(&self) -> Self {
        Self::default()
    }

    /// The state a child started by spawn or forkserver starts with, before it imports the main
    /// module: it shares no memory with this process, only what the analysis compares against it.
    fn spawned(&self) -> Self {
        Self::default()
    }

    /// Whether an import would leave this state as the cached import (run in a clean process)
    /// describes it: `false` makes the frontend run the module's top level again here.
    fn imports_like_clean(&self) -> bool {
        true
    }

    /// The process ended: emit what its end decides.
    fn finish(self, end: &ProcessEnd, facts: &mut Self::Facts);
}

/// An analysis state shared copy-on-write by the saved states of one process (a branch's
/// snapshot, an entry point's start). Saving a state costs a pointer instead of a copy of every
/// analysis; the first effect after it copies once; a join of two paths that still share their
/// state (no effect on either, the common case) costs nothing. That needs every join to be
/// idempotent, as a merge of two paths is: joining a state with itself leaves it unchanged.
#[derive(Clone, Debug, Default)]
pub struct Shared<A>(std::sync::Arc<A>);

impl<A> Shared<A> {
    /// Whether both are one shared state: neither changed since one was copied from the other (a
    /// frontend's cheap test that nothing changed it).
    pub fn ptr_eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl<A: Analysis> Analysis for Shared<A> {
    type Facts = A::Facts;

    fn effect(&mut self, effect: &Effect, cx: &Context, facts: &mut Self::Facts) {
        std::sync::Arc::make_mut(&mut self.0).effect(effect, cx, facts);
    }

    fn join(&mut self, other: Self) {
        if !std::sync::Arc::ptr_eq(&self.0, &other.0) {
            std::sync::Arc::make_mut(&mut self.0).join(std::sync::Arc::unwrap_or_clone(other.0));
        }
    }

    fn attach(&mut self, imported: &Self) {
        std::sync::Arc::make_mut(&mut self.0).attach(&imported.0);
    }

    fn forked(&self) -> Self {
        Shared(std::sync::Arc::new(self.0.forked()))
    }

    fn spawned(&self) -> Self {
        Shared(std::sync::Arc::new(self.0.spawned()))
    }

    fn imports_like_clean(&self) -> bool {
        self.0.imports_like_clean()
    }

    fn finish(self, end: &ProcessEnd, facts: &mut Self::Facts) {
        std::sync::Arc::unwrap_or_clone(self.0).finish(end, facts);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts the effects a process received (a join keeps the larger count) and the joins it ran.
    #[derive(Clone, Debug, Default)]
    struct Count {
        effects: u32,
        joins: u32,
    }

    impl Analysis for Count {
        type Facts = Vec<(u32, u32)>;

        fn effect(&mut self, _: &Effect, _: &Context, _: &mut Self::Facts) {
            self.effects += 1;
        }

        fn join(&mut self, other: Self) {
            self.effects = self.effects.max(other.effects);
            self.joins += 1 + other.joins;
        }

        fn finish(self, _: &ProcessEnd, facts: &mut Self::Facts) {
            facts.push((self.effects, self.joins));
        }
    }

    fn wait(state: &mut Shared<Count>) {
        let effect = Effect::WaitedForOthers {
            span: Span::default(),
        };
        state.effect(&effect, &Context::default(), &mut Vec::new());
    }

    fn finished(state: Shared<Count>) -> (u32, u32) {
        let mut facts = Vec::new();
        state.finish(&ProcessEnd::default(), &mut facts);
        facts[0]
    }

    #[test]
    fn a_saved_state_does_not_see_later_effects_and_joins_as_its_own() {
        let mut state = Shared::<Count>::default();
        wait(&mut state);
        let saved = state.clone();
        wait(&mut state);
        assert_eq!(finished(state.clone()), (2, 0));
        assert_eq!(finished(saved.clone()), (1, 0));
        let mut joined = saved;
        joined.join(state);
        assert_eq!(finished(joined), (2, 1));
    }

    #[test]
    fn two_paths_that_still_share_their_state_are_not_joined() {
        let mut state = Shared::<Count>::default();
        wait(&mut state);
        let other = state.clone();
        state.join(other);
        assert_eq!(finished(state), (1, 0));
    }
}
