//! Branches by the names they write. An `if` without `elif`, a `match` case, an `except` handler
//! and a loop's pass go back to the state before them, and join the paths, through the bindings
//! written since they began (each with what it held before) instead of a copy of the whole scope:
//! with a copy, a scope of thousands of names was copied and walked at every branch, and a run of
//! separate `if`s was quadratic. (An `elif` chain still keeps copies, bounded: see `exec_if`.)

use super::interp::Flow;
use super::process::Process;
use super::value::{Name, Value};
use super::Interp;
use crate::source::FileId;
use gpulint_core::analysis::Analysis;

/// A binding written while a branch was open: in which scope (a module's globals, or the locals of
/// the frame at this depth), its name, and what it held before (`None`: unbound).
struct Entry {
    place: Place,
    name: Name,
    old: Option<Value>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Place {
    Module(FileId),
    Locals(usize),
}

/// The bindings written since the outermost open branch began. It belongs with the frames: code
/// run with other frames (a module's import, a child's target) has a trail of its own.
#[derive(Default)]
pub(super) struct Trail {
    entries: Vec<Entry>,
    /// The open branches' module and frame depth: only writes to their scopes are noted.
    open: Vec<(FileId, usize)>,
}

/// Where a branch began: the trail's length, the scopes a branch goes back in (the module's and
/// the running frame's, as the scope copies did), and the process then.
pub(super) struct Mark<A> {
    at: usize,
    module: FileId,
    depth: usize,
    process: Process<A>,
}

/// A binding as a branch left it: the scope is the running frame's locals (`true`) or the module's.
type Binding = (bool, Name, Option<Value>);

impl<'m, A: Analysis> Interp<'m, A> {
    /// Whether a branch is open: only then are writes noted.
    pub(super) fn in_branch(&self) -> bool {
        !self.trail.open.is_empty()
    }

    /// Notes a write to a binding, with what it held, if an open branch goes back in its scope.
    pub(super) fn note_write(&mut self, place: Place, name: Name, old: Option<Value>) {
        let tracked = self.trail.open.iter().any(|&(module, depth)| match place {
            Place::Module(file) => file == module,
            Place::Locals(d) => d == depth,
        });
        if tracked {
            self.trail.entries.push(Entry { place, name, old });
        }
    }

    /// The trail of code run with other frames, for the caller to put back after.
    pub(super) fn take_trail(&mut self) -> Trail {
        std::mem::take(&mut self.trail)
    }

    pub(super) fn put_trail(&mut self, trail: Trail) {
        self.trail = trail;
    }

    pub(super) fn mark(&mut self) -> Mark<A> {
        self.trail.open.push((self.cur, self.frames.len()));
        Mark {
            at: self.trail.entries.len(),
            module: self.cur,
            depth: self.frames.len(),
            process: self.proc_ref().clone(),
        }
    }

    /// The branch that began at `mark` is done: the process then is handed back, and the trail
    /// is dropped when no other branch is open.
    pub(super) fn close(&mut self, mark: Mark<A>) -> Process<A> {
        self.trail.open.pop();
        if self.trail.open.is_empty() {
            self.trail.entries.clear();
        }
        mark.process
    }

    /// Whether `place` is a scope a branch begun at `mark` goes back in; `true` for its locals.
    fn tracked(mark: &Mark<A>, place: Place) -> Option<bool> {
        match place {
            Place::Module(file) if file == mark.module => Some(false),
            Place::Locals(depth) if depth == mark.depth && depth > 0 => Some(true),
            _ => None,
        }
    }

    /// The bindings written since `mark`, once each in the order first written, with what each
    /// held at `mark`.
    fn written_since(&self, mark: &Mark<A>) -> Vec<Binding> {
        let mut seen = rustc_hash::FxHashSet::default();
        let mut out = Vec::new();
        for e in &self.trail.entries[mark.at..] {
            if let Some(local) = Self::tracked(mark, e.place) {
                if seen.insert((local, e.name.clone())) {
                    out.push((local, e.name.clone(), e.old.clone()));
                }
            }
        }
        out
    }

    fn binding(&self, local: bool, name: &str) -> Option<&Value> {
        if local {
            self.frames.last()?.locals.get(name)
        } else {
            self.world.globals().get(&self.cur)?.get(name)
        }
    }

    /// Writes a binding (`None` unbinds it), noting it for the branches still open.
    fn set_binding(&mut self, local: bool, name: Name, value: Option<Value>) {
        let old = if local {
            let Some(frame) = self.frames.last_mut() else {
                return;
            };
            // A join or an undo: the value is no longer one literal's on every path.
            frame.forget_exact(&name);
            let locals = std::sync::Arc::make_mut(&mut frame.locals);
            match value {
                Some(v) => locals.insert(name.clone(), v),
                None => locals.remove(&name),
            }
        } else {
            let scope = self.scope_mut();
            match value {
                Some(v) => scope.insert(name.clone(), v),
                None => scope.remove(&name),
            }
        };
        let place = match local {
            true => Place::Locals(self.frames.len()),
            false => Place::Module(self.cur),
        };
        self.note_write(place, name, old);
    }

    /// Puts back what the bindings held at `mark`, and the process then; the trail goes back to it.
    pub(super) fn undo_to(&mut self, mark: &Mark<A>) {
        while self.trail.entries.len() > mark.at {
            let Some(e) = self.trail.entries.pop() else {
                break;
            };
            let Some(local) = Self::tracked(mark, e.place) else {
                continue;
            };
            if local {
                if let Some(frame) = self.frames.last_mut() {
                    frame.forget_exact(&e.name);
                    let locals = std::sync::Arc::make_mut(&mut frame.locals);
                    match e.old {
                        Some(v) => locals.insert(e.name, v),
                        None => locals.remove(&e.name),
                    };
                }
            } else {
                let scope = self.scope_mut();
                match e.old {
                    Some(v) => scope.insert(e.name, v),
                    None => scope.remove(&e.name),
                };
            }
        }
        *self.proc() = mark.process.clone();
    }

    /// Joins another path's bindings into the current ones, as a join of the whole scopes would:
    /// `others` are the names either path wrote, with the other path's value.
    fn join_bindings(&mut self, others: Vec<Binding>) {
        for (local, name, other) in others {
            let Some(other) = other else {
                continue;
            };
            let joined = match self.binding(local, &name) {
                Some(mine) if mine.absorbs(&other) => continue,
                Some(mine) => mine.clone().join(other),
                None => Value::Unknown.join(other),
            };
            self.set_binding(local, name, Some(joined));
        }
    }

    /// A `match` case or an `except` handler: a block that may not run, run from here and joined
    /// with not running.
    pub(super) fn exec_maybe(&mut self, block: &'m [crate::model::Stmt]) {
        let mark = self.mark();
        self.exec_block(block);
        self.join_back(mark);
    }

    /// Joins the state at `mark` into the current one, and closes it.
    pub(super) fn join_back(&mut self, mark: Mark<A>) {
        let before = self.written_since(&mark);
        self.join_bindings(before);
        let process = self.close(mark);
        self.proc().join(process);
    }

    /// An `if` with no `elif`, its test evaluated: the body runs from here, the `else` from the
    /// state before it, and the two are joined. `body` is run by `run_body`, which keeps the flags
    /// an `if` sets around its body.
    pub(super) fn exec_branches(
        &mut self,
        run_body: impl FnOnce(&mut Self) -> Flow,
        orelse: &'m [crate::model::Stmt],
    ) -> Flow {
        let mark = self.mark();
        let flow_body = run_body(self);
        let after_body: Vec<Binding> = self
            .written_since(&mark)
            .into_iter()
            .map(|(local, name, _)| {
                let now = self.binding(local, &name).cloned();
                (local, name, now)
            })
            .collect();
        let body_process = self.proc_ref().clone();
        self.undo_to(&mark);
        let flow_else = self.exec_block(orelse);
        let flow = match (flow_body, flow_else) {
            // The branch that jumped no longer binds names here, but what it did to the process
            // happened on that path.
            (jumped, Flow::Normal) if jumped != Flow::Normal => {
                self.left(jumped, body_process);
                Flow::Normal
            }
            (Flow::Normal, jumped) if jumped != Flow::Normal => {
                let after_else = self.proc_ref().clone();
                self.undo_to(&mark);
                for (local, name, value) in after_body {
                    self.set_binding(local, name, value);
                }
                *self.proc() = body_process;
                self.left(jumped, after_else);
                Flow::Normal
            }
            (body, orelse) => {
                // The names the `else` alone wrote held on the body's path what they held here.
                let mut others = after_body;
                let written: rustc_hash::FxHashSet<(bool, Name)> =
                    others.iter().map(|(l, n, _)| (*l, n.clone())).collect();
                for (local, name, old) in self.written_since(&mark) {
                    if !written.contains(&(local, name.clone())) {
                        others.push((local, name, old));
                    }
                }
                self.join_bindings(others);
                self.proc().join(body_process);
                super::returns::both(body, orelse)
            }
        };
        drop(self.close(mark));
        flow
    }
}
