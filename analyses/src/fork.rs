//! GPU001's analysis: a child started by fork from a process that initialised CUDA, and the child's
//! first use of CUDA.

use std::sync::Arc;

use gpulint_core::analysis::{Analysis, Context, ProcessEnd};
use gpulint_core::effect::{
    ChildStart, CudaInitSite, CudaUse, DefaultContextCall, Effect, EntryCallers, Launcher,
    OtherLayerStart, StartMethod,
};
use gpulint_core::source::Span;

/// A child process created at `span`, with the parent's CUDA state then and the child's CUDA use.
#[derive(Clone, Debug, PartialEq)]
pub struct ForkFact {
    pub span: Span,
    pub launcher: &'static Launcher,
    pub start_method: StartMethod,
    /// Why that start method: "the platform default", or the span that chose it.
    pub start_method_source: Option<Span>,
    /// CUDA state of the parent when the child was created.
    pub parent_init: Option<CudaInitSite>,
    /// The first CUDA use in code the child runs.
    pub child_use: Option<CudaUse>,
    /// That use is only memory the child holds and frees at its exit (torch 2.11 and later).
    pub child_only_holds: bool,
    /// What the child runs, for messages: "`embed`", "`FrameDataset.__getitem__`".
    pub child_code: String,
    /// Some visit created the child from the module's top-level code (not from a function).
    pub at_module_scope: bool,
    /// A `set_start_method` of another layer that this fork point does not obey.
    pub other_layer_start: Option<OtherLayerStart>,
    /// The start method is the default in a function nothing in the project calls: the verdict
    /// holds unless its caller sets another one first.
    pub caller_unknown: bool,
    /// The call that made the process or pool on its package's default context, for a fix.
    pub made_by: Option<DefaultContextCall>,
}

impl ForkFact {
    /// The verdict: a hazard when the child starts from an initialised parent (by fork, or from a
    /// fork server that initialised CUDA) and uses CUDA. Returns the initialisation and the use.
    pub fn hazard(&self) -> Option<(&CudaInitSite, &CudaUse)> {
        if self.start_method == StartMethod::Spawn {
            return None;
        }
        Some((self.parent_init.as_ref()?, self.child_use.as_ref()?))
    }

    /// GPU012's verdict: the hazard holds, and the program asked for another start method, on a
    /// layer this fork point does not obey. Returns that `set_start_method`.
    pub fn wrong_layer(&self) -> Option<&OtherLayerStart> {
        self.hazard()?;
        self.other_layer_start
            .as_ref()
            .filter(|o| o.method != StartMethod::Fork)
    }
}

#[derive(Clone, Debug, Default)]
pub struct ForkAfterInit {
    /// The fork point this process is a child of.
    fork: Option<Span>,
    first_use: Option<CudaUse>,
    /// The code the child was running when it first used CUDA, and the code it runs now.
    user: Option<Arc<str>>,
    running: Option<Arc<str>>,
    /// CUDA memory the child inherited through what it was handed and frees at exit: a use when
    /// the child uses nothing else.
    held: Option<CudaUse>,
}

impl ForkAfterInit {
    fn used(&mut self, span: Span, what: &Arc<str>) {
        if self.first_use.is_none() {
            self.first_use = Some(CudaUse {
                span,
                what: what.clone(),
            });
            self.user = self.running.clone();
        }
    }
}

/// Records a fork point, merging with an earlier visit of the same site.
fn add_fork(facts: &mut Vec<ForkFact>, child: &ChildStart) {
    // A default start method in a function the project calls: its callers' analyses judge the
    // child with the start method they set.
    if child.default_in_entry == Some(EntryCallers::InProject) {
        return;
    }
    let caller_unknown = child.default_in_entry == Some(EntryCallers::Unknown);
    match facts.iter_mut().find(|f| f.span == child.span) {
        Some(old) => {
            old.at_module_scope |= child.at_module_scope;
            if old.parent_init.is_none() && child.parent_init.is_some() {
                old.parent_init = child.parent_init.clone();
                old.start_method = child.start_method;
                old.start_method_source = child.start_method_source;
                old.caller_unknown = caller_unknown;
            } else if child.parent_init.is_some() {
                old.caller_unknown &= caller_unknown;
            }
            if old.other_layer_start.is_none() {
                old.other_layer_start = child.other_layer_start.clone();
            }
            if old.made_by.is_none() {
                old.made_by = child.made_by.clone();
            }
            // Until a child has used CUDA, the latest visit's child is the one to describe.
            if let (None, Some(code)) = (&old.child_use, &child.code) {
                old.child_code = code.to_string();
            }
        }
        None => facts.push(ForkFact {
            span: child.span,
            launcher: child.launcher,
            start_method: child.start_method,
            start_method_source: child.start_method_source,
            parent_init: child.parent_init.clone(),
            child_use: None,
            child_only_holds: false,
            child_code: child.code.as_deref().unwrap_or_default().to_string(),
            at_module_scope: child.at_module_scope,
            other_layer_start: child.other_layer_start.clone(),
            caller_unknown,
            made_by: child.made_by.clone(),
        }),
    }
}

impl Analysis for ForkAfterInit {
    type Facts = Vec<ForkFact>;

    fn effect(&mut self, effect: &Effect, _: &Context, facts: &mut Self::Facts) {
        match effect {
            Effect::ChildStarted(child) => {
                add_fork(facts, child);
                *self = ForkAfterInit {
                    fork: Some(child.span),
                    ..ForkAfterInit::default()
                };
            }
            Effect::ChildRuns { code } => self.running = Some(code.clone()),
            Effect::CudaInit {
                site,
                fails_in_child: true,
            } => self.used(site.span, &site.what),
            Effect::CudaUsed { span, what, .. } => self.used(*span, what),
            Effect::CudaHeld { span, what } if self.held.is_none() => {
                self.held = Some(CudaUse {
                    span: *span,
                    what: what.clone(),
                });
            }
            _ => {}
        }
    }

    fn join(&mut self, other: Self) {
        // A path that became a forked child (`if os.fork(): sys.exit()` in a helper) stays one,
        // with that path's use; otherwise the first use on either path.
        let becomes_child = self.fork.is_none() && other.fork.is_some();
        if becomes_child {
            self.fork = other.fork;
        }
        if becomes_child || self.first_use.is_none() {
            self.first_use = other.first_use;
            self.user = other.user;
        }
        if self.held.is_none() {
            self.held = other.held;
        }
    }

    fn attach(&mut self, imported: &Self) {
        if let Some(used) = &imported.first_use {
            self.used(used.span, &used.what);
        }
    }

    fn finish(self, _: &ProcessEnd, facts: &mut Self::Facts) {
        let Some(fork) = self.fork else {
            return;
        };
        if let Some(fact) = facts.iter_mut().find(|f| f.span == fork) {
            if fact.child_use.is_none() {
                if let Some(user) = self.user {
                    fact.child_code = user.to_string();
                }
                fact.child_only_holds = self.first_use.is_none() && self.held.is_some();
                fact.child_use = self.first_use.or(self.held);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::at;

    fn start(parent: bool) -> Effect {
        Effect::ChildStarted(ChildStart {
            span: at(10),
            launcher: &crate::testing::POOL,
            start_method: StartMethod::Fork,
            start_method_source: None,
            parent_init: parent.then(|| CudaInitSite {
                span: at(1),
                level: gpulint_core::effect::Init::Context,
                what: "init".into(),
            }),
            code: Some("its tasks".into()),
            at_module_scope: false,
            during_reimport: false,
            other_layer_start: None,
            default_in_entry: None,
            made_by: None,
            repeated: false,
        })
    }

    fn used_at(start: u32) -> Effect {
        Effect::CudaInit {
            site: CudaInitSite {
                span: at(start),
                level: gpulint_core::effect::Init::Context,
                what: "use".into(),
            },
            fails_in_child: true,
        }
    }

    #[test]
    fn the_child_reports_its_first_use_and_the_code_that_made_it() {
        let cx = Context::default();
        let mut facts = Vec::new();
        let mut child = ForkAfterInit::default();
        child.effect(&start(true), &cx, &mut facts);
        child.effect(
            &Effect::ChildRuns {
                code: "`embed`".into(),
            },
            &cx,
            &mut facts,
        );
        child.effect(&used_at(20), &cx, &mut facts);
        child.effect(&used_at(30), &cx, &mut facts);
        child.finish(&ProcessEnd::default(), &mut facts);
        let [fact] = facts.try_into().unwrap();
        assert_eq!(fact.child_use.as_ref().map(|u| u.span), Some(at(20)));
        assert_eq!(fact.child_code, "`embed`");
        assert!(fact.hazard().is_some());
    }

    #[test]
    fn uses_before_the_child_started_are_not_the_childs() {
        let cx = Context::default();
        let mut facts = Vec::new();
        // A spawned child re-imports the main module first: what that did is not the child's use.
        let mut child = ForkAfterInit::default();
        child.effect(&used_at(5), &cx, &mut facts);
        child.effect(&start(false), &cx, &mut facts);
        child.finish(&ProcessEnd::default(), &mut facts);
        let [fact] = facts.try_into().unwrap();
        assert_eq!(fact.child_use, None);
        assert!(fact.hazard().is_none());
    }

    #[test]
    fn another_layers_spawn_is_the_wrong_layer_only_for_a_hazard() {
        let other = |method| OtherLayerStart {
            span: at(3),
            method,
            set_on: "multiprocessing".into(),
            forks_through: Some("multiprocess".into()),
        };
        let cx = Context::default();
        let mut facts = Vec::new();
        for used in [false, true] {
            let mut child = ForkAfterInit::default();
            let Effect::ChildStarted(mut started) = start(true) else {
                unreachable!()
            };
            started.span = at(if used { 11 } else { 12 });
            started.other_layer_start = Some(other(StartMethod::Spawn));
            child.effect(&Effect::ChildStarted(started), &cx, &mut facts);
            if used {
                child.effect(&used_at(20), &cx, &mut facts);
            }
            child.finish(&ProcessEnd::default(), &mut facts);
        }
        let [unused, used] = facts.try_into().unwrap();
        assert!(unused.wrong_layer().is_none());
        assert_eq!(used.wrong_layer().map(|o| o.span), Some(at(3)));
        let asked_fork = ForkFact {
            other_layer_start: Some(other(StartMethod::Fork)),
            ..used
        };
        assert!(asked_fork.wrong_layer().is_none());
    }

    #[test]
    fn a_default_start_method_in_an_entry_is_left_to_callers_or_marked_caller_dependent() {
        let cx = Context::default();
        let mut facts = Vec::new();
        for callers in [EntryCallers::InProject, EntryCallers::Unknown] {
            let Effect::ChildStarted(mut started) = start(true) else {
                unreachable!()
            };
            started.default_in_entry = Some(callers);
            let mut child = ForkAfterInit::default();
            child.effect(&Effect::ChildStarted(started), &cx, &mut facts);
            child.effect(&used_at(20), &cx, &mut facts);
            child.finish(&ProcessEnd::default(), &mut facts);
        }
        let [fact] = facts.try_into().unwrap();
        assert!(fact.caller_unknown && fact.hazard().is_some());
    }

    #[test]
    fn a_second_visit_fills_in_the_parent_state_the_first_lacked() {
        let cx = Context::default();
        let mut facts = Vec::new();
        for parent in [false, true] {
            let mut child = ForkAfterInit::default();
            child.effect(&start(parent), &cx, &mut facts);
            child.effect(&used_at(20), &cx, &mut facts);
            child.finish(&ProcessEnd::default(), &mut facts);
        }
        let [fact] = facts.try_into().unwrap();
        assert_eq!(fact.parent_init.map(|p| p.span), Some(at(1)));
    }
}
