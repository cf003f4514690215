//! The seam between frontends and analyses. A frontend keeps one state of each analysis per
//! simulated process and calls these methods; it never looks inside. Every operation a process
//! undergoes (an effect, a branch merge, a fork, an import from the cache, its end) is one call here,
//! written once in the frontend for every analysis.

use crate::effect::Effect;
use crate::source::Span;

/// Where an effect happened, beyond its span.
#[derive(Clone, Copy, Debug, Default)]
pub struct Context {
    /// The function whose code produced the effect (its definition's name span), if any.
    pub function: Option<Span>,
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
