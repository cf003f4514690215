//! GPU013's analysis: a module global the parent bound at run time (in a function, or under the
//! main guard), read by a child started by spawn or forkserver. That child imports the program
//! afresh, so it reads the value the import gives, not the parent's. A forked child inherits the
//! parent's memory and reads the parent's value.

use std::sync::Arc;

use gpulint_core::analysis::{Analysis, Context, ProcessEnd};
use gpulint_core::effect::{Effect, GlobalName, StartMethod};
use gpulint_core::source::Span;

/// A run-time binding of a global: where it happened first, and whether it changed the object in
/// place rather than rebinding the name.
#[derive(Clone, Debug, PartialEq)]
struct Write {
    global: GlobalName,
    span: Span,
    in_place: bool,
}

/// How the child that reads a stale global was started.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Start {
    /// The fork point.
    pub span: Span,
    pub method: StartMethod,
    /// What chose the start method (`None`: the platform default).
    pub source: Option<Span>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct StaleGlobalFact {
    /// The child's read.
    pub read: Span,
    pub name: Arc<str>,
    /// The parent's run-time binding.
    pub written: Span,
    /// The parent changed the object in place (`CONFIG["x"] = 1`) rather than rebinding the name.
    pub in_place: bool,
    /// The child's import binds the name (otherwise the read raises `NameError`).
    pub defined: bool,
    /// A library's process-wide setting rather than a module binding.
    pub setting: bool,
    pub start: Start,
}

#[derive(Clone, Debug, Default)]
pub struct StaleGlobals {
    /// Globals this process bound at run time.
    written: Arc<Vec<Write>>,
    /// In a child that imported the program afresh: what its parent had bound at run time, less
    /// what the child bound again itself since.
    stale: Arc<Vec<Write>>,
    /// That child's start.
    start: Option<Start>,
    /// The parent's run-time bindings this child made again at the same place (a lazy value
    /// both build on first use).
    rebuilt: Arc<Vec<Write>>,
}

fn union(mine: &mut Arc<Vec<Write>>, other: &Arc<Vec<Write>>) {
    if Arc::ptr_eq(mine, other) {
        return;
    }
    for w in other.iter() {
        if !mine
            .iter()
            .any(|m| m.global == w.global && m.in_place == w.in_place)
        {
            Arc::make_mut(mine).push(w.clone());
        }
    }
}

/// Whether `a` is a field of the object `b` holds (`CONFIG.lr` of `CONFIG`).
fn is_field_of(a: &GlobalName, b: &GlobalName) -> bool {
    a.module == b.module
        && a.setting == b.setting
        && a.name
            .strip_prefix(&*b.name)
            .is_some_and(|rest| rest.starts_with('.'))
}

impl StaleGlobals {
    /// The child sets a global (or changes what it holds) itself: an initializer, the target
    /// before it reads. That covers the object's fields too, except where the child binds it at
    /// the very place the parent did (a lazy singleton both build on first use): the child then
    /// has the object as first built, without the parent's later changes to it.
    fn set_again(&mut self, global: &GlobalName, span: Span, in_place: bool) {
        let of = |w: &Write| w.global == *global || is_field_of(&w.global, global);
        if !self.stale.iter().any(of) {
            return;
        }
        let the_binding = |w: &Write| w.global == *global && !w.in_place;
        let repeats = !in_place
            && self
                .stale
                .iter()
                .chain(self.rebuilt.iter())
                .any(|w| the_binding(w) && w.span == span);
        if repeats {
            // Remembered: a later pass through the same lazy binding repeats it too.
            let binding: Vec<Write> = self
                .stale
                .iter()
                .filter(|w| the_binding(w))
                .cloned()
                .collect();
            union(&mut self.rebuilt, &Arc::new(binding));
        }
        Arc::make_mut(&mut self.stale).retain(|w| !of(w) || (repeats && !the_binding(w)));
    }
}

impl Analysis for StaleGlobals {
    type Facts = Vec<StaleGlobalFact>;

    fn effect(&mut self, effect: &Effect, _: &Context, facts: &mut Self::Facts) {
        match effect {
            Effect::GlobalWritten {
                span,
                global,
                in_place,
            } => {
                self.set_again(global, *span, *in_place);
                let kept = self
                    .written
                    .iter()
                    .any(|w| w.global == *global && w.in_place == *in_place);
                if !kept {
                    Arc::make_mut(&mut self.written).push(Write {
                        global: global.clone(),
                        span: *span,
                        in_place: *in_place,
                    });
                }
            }
            Effect::ChildStarted(child) if self.start.is_none() => {
                self.start = Some(Start {
                    span: child.span,
                    method: child.start_method,
                    source: child.start_method_source,
                });
            }
            Effect::GlobalRead {
                span,
                global,
                defined,
                owner: false,
            } => {
                // A rebinding first: it says more than a change of the object it bound.
                let write = self
                    .stale
                    .iter()
                    .filter(|w| w.global == *global)
                    .min_by_key(|w| w.in_place);
                let (Some(start), Some(write)) = (self.start, write) else {
                    return;
                };
                let seen = facts
                    .iter()
                    .any(|f| f.start.span == start.span && f.written == write.span);
                if !seen {
                    facts.push(StaleGlobalFact {
                        read: *span,
                        name: global.name.clone(),
                        written: write.span,
                        in_place: write.in_place,
                        defined: *defined,
                        setting: global.setting,
                        start,
                    });
                }
            }
            _ => {}
        }
    }

    fn join(&mut self, other: Self) {
        union(&mut self.written, &other.written);
        // Stale only where no path set it again: when in doubt, the child's own value counts.
        if !Arc::ptr_eq(&self.stale, &other.stale) {
            Arc::make_mut(&mut self.stale).retain(|w| {
                other
                    .stale
                    .iter()
                    .any(|o| o.global == w.global && o.in_place == w.in_place)
            });
        }
        self.start = self.start.or(other.start);
        union(&mut self.rebuilt, &other.rebuilt);
    }

    fn attach(&mut self, imported: &Self) {
        union(&mut self.written, &imported.written);
    }

    /// A forked child has the parent's memory: what it holds, and what it lacks.
    fn forked(&self) -> Self {
        self.clone()
    }

    /// A child that imports the program afresh lacks every global its parent bound at run time.
    fn spawned(&self) -> Self {
        StaleGlobals {
            written: Arc::default(),
            stale: self.written.clone(),
            start: None,
            rebuilt: Arc::default(),
        }
    }

    fn finish(self, _: &ProcessEnd, _: &mut Self::Facts) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{at, child_started};
    use gpulint_core::source::FileId;

    fn global(name: &str) -> GlobalName {
        GlobalName {
            module: FileId(0),
            name: name.into(),
            setting: false,
        }
    }

    fn write(name: &str, span: u32) -> Effect {
        Effect::GlobalWritten {
            span: at(span),
            global: global(name),
            in_place: false,
        }
    }

    fn read(name: &str, span: u32, owner: bool) -> Effect {
        Effect::GlobalRead {
            span: at(span),
            global: global(name),
            defined: true,
            owner,
        }
    }

    fn started(method: StartMethod) -> Effect {
        child_started(&crate::testing::POOL, method, 50)
    }

    fn run(parent: &[Effect], child: &[Effect], spawn: bool) -> Vec<StaleGlobalFact> {
        let mut facts = Vec::new();
        let mut p = StaleGlobals::default();
        for e in parent {
            p.effect(e, &Context::default(), &mut facts);
        }
        let (mut c, method) = if spawn {
            (p.spawned(), StartMethod::Spawn)
        } else {
            (p.forked(), StartMethod::Fork)
        };
        c.effect(&started(method), &Context::default(), &mut facts);
        for e in child {
            c.effect(e, &Context::default(), &mut facts);
        }
        facts
    }

    #[test]
    fn a_spawned_child_reads_what_the_parent_set_at_run_time() {
        let [fact] = run(&[write("FLAG", 1)], &[read("FLAG", 9, false)], true)
            .try_into()
            .unwrap();
        assert_eq!((fact.read, fact.written), (at(9), at(1)));
        assert_eq!(fact.start.method, StartMethod::Spawn);
    }

    #[test]
    fn a_forked_child_inherits_the_value() {
        assert!(run(&[write("FLAG", 1)], &[read("FLAG", 9, false)], false).is_empty());
    }

    #[test]
    fn set_again_in_the_child_or_owned_by_the_reader_is_silent() {
        assert!(run(
            &[write("FLAG", 1)],
            &[write("FLAG", 5), read("FLAG", 9, false)],
            true
        )
        .is_empty());
        assert!(run(&[write("CACHE", 1)], &[read("CACHE", 9, true)], true).is_empty());
        assert!(run(&[write("OTHER", 1)], &[read("FLAG", 9, false)], true).is_empty());
    }

    #[test]
    fn a_write_after_the_start_is_not_seen_by_that_child() {
        let mut facts = Vec::new();
        let mut p = StaleGlobals::default();
        let mut c = p.spawned();
        p.effect(&write("FLAG", 1), &Context::default(), &mut facts);
        c.effect(
            &started(StartMethod::Spawn),
            &Context::default(),
            &mut facts,
        );
        c.effect(&read("FLAG", 9, false), &Context::default(), &mut facts);
        assert!(facts.is_empty());
    }

    #[test]
    fn a_child_that_set_it_again_on_one_path_only_is_given_the_benefit() {
        let mut facts = Vec::new();
        let mut p = StaleGlobals::default();
        p.effect(&write("FLAG", 1), &Context::default(), &mut facts);
        let mut c = p.spawned();
        c.effect(
            &started(StartMethod::Spawn),
            &Context::default(),
            &mut facts,
        );
        let mut other = c.clone();
        other.effect(&write("FLAG", 5), &Context::default(), &mut facts);
        c.join(other);
        c.effect(&read("FLAG", 9, false), &Context::default(), &mut facts);
        assert!(facts.is_empty());
    }

    #[test]
    fn one_fact_per_global_and_child() {
        let found = run(
            &[write("FLAG", 1)],
            &[read("FLAG", 9, false), read("FLAG", 12, false)],
            true,
        );
        assert_eq!(found.len(), 1);
    }

    #[test]
    fn a_child_that_builds_the_object_again_lacks_the_parents_later_changes() {
        let changed = |span| Effect::GlobalWritten {
            span: at(span),
            global: global("ONE"),
            in_place: true,
        };
        // The parent builds the singleton (1) then changes it (2); the child builds it at the
        // same place (1) and reads it.
        let found = run(
            &[write("ONE", 1), changed(2)],
            &[write("ONE", 1), read("ONE", 9, false)],
            true,
        );
        let [fact] = found.try_into().unwrap();
        assert_eq!((fact.written, fact.in_place), (at(2), true));
        // Built elsewhere in the child (its own setup), or changed there itself: its own value.
        assert!(run(
            &[write("ONE", 1), changed(2)],
            &[write("ONE", 5), read("ONE", 9, false)],
            true
        )
        .is_empty());
        assert!(run(
            &[write("ONE", 1), changed(2)],
            &[changed(6), read("ONE", 9, false)],
            true
        )
        .is_empty());
    }

    #[test]
    fn a_field_changed_by_the_parent_is_set_again_by_a_child_that_binds_its_own_object() {
        let field = |span| Effect::GlobalWritten {
            span: at(span),
            global: global("ONE.width"),
            in_place: true,
        };
        let read_field = Effect::GlobalRead {
            span: at(9),
            global: global("ONE.width"),
            defined: true,
            owner: false,
        };
        let found = run(
            &[write("ONE", 1), field(2)],
            &[write("ONE", 1), read_field.clone()],
            true,
        );
        assert_eq!(found.len(), 1);
        assert!(run(
            &[write("ONE", 1), field(2)],
            &[write("ONE", 5), read_field],
            true
        )
        .is_empty());
    }
}
