//! GPU014's analysis: a child forked after its parent started the intra-op thread pool, which runs
//! host-tensor operations itself. The child inherits the pool's bookkeeping but none of its
//! threads, so its first parallel operation can wait for them forever.

use gpulint_core::analysis::{Analysis, Context, ProcessEnd};
use gpulint_core::effect::{
    ChildStart, CudaUse, DefaultContextCall, Effect, Launcher, StartMethod,
};
use gpulint_core::source::Span;

/// A child forked after the pool started, and its own operation that needs the pool.
#[derive(Clone, Debug, PartialEq)]
pub struct ThreadpoolFact {
    /// The fork point.
    pub span: Span,
    pub launcher: &'static Launcher,
    /// The parent's first operation on the pool.
    pub parent_compute: CudaUse,
    /// The child's first operation on the pool.
    pub child_compute: CudaUse,
    /// What the child runs, for messages.
    pub child_code: String,
    /// The fork point is in the module's top-level code.
    pub at_module_scope: bool,
    /// The call that made the process or pool on its package's default context, for a fix.
    pub made_by: Option<DefaultContextCall>,
}

#[derive(Clone, Debug, Default)]
pub struct ForkAfterThreads {
    /// This process's first operation on the pool: its threads exist from there.
    started: Option<CudaUse>,
    /// A forked child: how it started, and the parent's first operation on the pool.
    forked: Option<(ChildStart, CudaUse)>,
    /// The parent had started the pool when this process was forked from it.
    parent_started: Option<CudaUse>,
    /// The pool was limited to one thread: operations start no threads.
    limited: bool,
    reported: bool,
}

impl Analysis for ForkAfterThreads {
    type Facts = Vec<ThreadpoolFact>;

    fn effect(&mut self, effect: &Effect, _: &Context, facts: &mut Self::Facts) {
        match effect {
            Effect::ChildStarted(child) => {
                let parent = self.parent_started.take();
                *self = ForkAfterThreads::default();
                if let (StartMethod::Fork, Some(parent)) = (child.start_method, parent) {
                    self.forked = Some((child.clone(), parent));
                }
            }
            Effect::HostThreadsLimited { .. } => self.limited = true,
            Effect::HostCompute { span, what } if !self.limited => {
                let here = CudaUse {
                    span: *span,
                    what: what.clone(),
                };
                if let (Some((child, parent)), false) = (&self.forked, self.reported) {
                    self.reported = true;
                    if !facts.iter().any(|f| f.span == child.span) {
                        facts.push(ThreadpoolFact {
                            span: child.span,
                            launcher: child.launcher,
                            parent_compute: parent.clone(),
                            child_compute: here.clone(),
                            child_code: child.code.as_deref().unwrap_or_default().to_string(),
                            at_module_scope: child.at_module_scope,
                            made_by: child.made_by.clone(),
                        });
                    }
                }
                self.started.get_or_insert(here);
            }
            _ => {}
        }
    }

    fn join(&mut self, other: Self) {
        if self.started.is_none() {
            self.started = other.started;
        }
        if self.forked.is_none() {
            self.forked = other.forked;
        }
        // Limited only where every path limited it.
        self.limited &= other.limited;
        self.reported |= other.reported;
    }

    fn forked(&self) -> Self {
        ForkAfterThreads {
            parent_started: self.started.clone().filter(|_| !self.limited),
            ..ForkAfterThreads::default()
        }
    }

    fn finish(self, _: &ProcessEnd, _: &mut Self::Facts) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{at, child_started};

    fn compute(s: u32) -> Effect {
        Effect::HostCompute {
            span: at(s),
            what: "op".into(),
        }
    }

    /// The parent's effects, then a child started at 50 by `method`, with the child's effects.
    fn run(parent: Vec<Effect>, method: StartMethod, child: Vec<Effect>) -> Vec<ThreadpoolFact> {
        let cx = Context::default();
        let mut facts = Vec::new();
        let mut p = ForkAfterThreads::default();
        for e in &parent {
            p.effect(e, &cx, &mut facts);
        }
        let mut c = match method {
            StartMethod::Fork => p.forked(),
            _ => p.spawned(),
        };
        c.effect(
            &child_started(&crate::testing::POOL, method, 50),
            &cx,
            &mut facts,
        );
        for e in &child {
            c.effect(e, &cx, &mut facts);
        }
        facts
    }

    #[test]
    fn a_child_computing_after_the_parent_started_the_pool_is_reported() {
        let [f] = run(vec![compute(1)], StartMethod::Fork, vec![compute(60)])
            .try_into()
            .unwrap();
        assert_eq!(
            (f.span, f.parent_compute.span, f.child_compute.span),
            (at(50), at(1), at(60))
        );
    }

    #[test]
    fn limits_spawn_and_an_idle_parent_are_silent() {
        let limit = Effect::HostThreadsLimited { span: at(55) };
        assert!(run(vec![], StartMethod::Fork, vec![compute(60)]).is_empty());
        assert!(run(vec![compute(1)], StartMethod::Spawn, vec![compute(60)]).is_empty());
        assert!(run(
            vec![compute(1)],
            StartMethod::Fork,
            vec![limit, compute(60)]
        )
        .is_empty());
        let parent_limited = vec![Effect::HostThreadsLimited { span: at(0) }, compute(1)];
        assert!(run(parent_limited, StartMethod::Fork, vec![compute(60)]).is_empty());
        assert!(run(vec![compute(1)], StartMethod::Fork, vec![]).is_empty());
    }
}
