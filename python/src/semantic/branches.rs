//! Branches and loops: an `if` runs both ways (or the one its test decides) and the paths join;
//! a loop body runs twice; the snapshots and joins of the paths' states.

use std::sync::Arc;

use gpulint_core::analysis::Analysis;

use super::interp::*;
use super::names::{is_main_guard, is_type_checking};
use super::process::Process;
use super::value::{Name, Value};
use super::{Interp, Scope, MAX_LOOP_DEPTH};
use crate::model::{CmpOp, Expr, ExprKind, Stmt, StmtKind};
use crate::source::Span;

impl<'m, A: Analysis> Interp<'m, A> {
    /// An `if`, and the `elif`s after it. An `elif` chain is an `if` nested in each `else`: it runs
    /// as a loop, and the branches are joined afterwards from the innermost out, as the nesting
    /// says, so that a chain of thousands of branches needs no deep recursion.
    pub(super) fn exec_if(&mut self, test: &'m Expr, body: &'m [Stmt], orelse: &'m [Stmt]) -> Flow {
        if !matches!(orelse, [only] if matches!(only.kind, StmtKind::If { .. })) {
            return self.exec_plain_if(test, body, orelse);
        }
        let mut pending: Vec<(Snapshot<A>, Flow)> = Vec::new();
        let (mut test, mut body, mut orelse) = (test, body, orelse);
        let mut flow = loop {
            match self.if_step(test, body) {
                IfStep::Branch(after_body, flow_body) => {
                    pending.push((after_body, flow_body));
                    if pending.len() == MAX_PENDING_BRANCHES {
                        let joined = self.join_pending(std::mem::take(&mut pending));
                        pending.push(joined);
                    }
                }
                IfStep::OnlyElse => break self.exec_block(orelse),
                IfStep::OnlyBody => break self.run_if_body(test, body, false, false),
                IfStep::Fork(span, child_is_body) => {
                    break self.fork_branches(span, child_is_body, body, orelse)
                }
            }
            let elif = match orelse {
                [only] => match &only.kind {
                    StmtKind::If { test, body, orelse } => Some((test, body, orelse)),
                    _ => None,
                },
                _ => None,
            };
            match elif {
                // What `exec_block` would do before running the nested `if`.
                Some(_) if self.proc_ref().exited => break Flow::Jump,
                Some((t, b, o)) => {
                    self.budget.spend();
                    (test, body, orelse) = (t, b, o);
                }
                None => break self.exec_block(orelse),
            }
        };
        while let Some((after_body, flow_body)) = pending.pop() {
            flow = self.join_branches(after_body, flow_body, flow);
        }
        flow
    }

    /// Joins the branches of a long `elif` chain kept so far into one, as the chain's nesting
    /// would (the last of them standing for the `else`), and comes back to the state here. A chain
    /// of thousands of branches then holds a bounded number of snapshots, each a copy of the state.
    pub(super) fn join_pending(
        &mut self,
        mut pending: Vec<(Snapshot<A>, Flow)>,
    ) -> (Snapshot<A>, Flow) {
        let here = self.snapshot();
        let Some((last, mut flow)) = pending.pop() else {
            return (here, Flow::Normal);
        };
        self.restore(last);
        while let Some((after_body, flow_body)) = pending.pop() {
            flow = self.join_branches(after_body, flow_body, flow);
        }
        let joined = self.snapshot();
        self.restore(here);
        (joined, flow)
    }

    /// Evaluates an `if`'s test and, for an ordinary test, runs the body from here and returns to
    /// the state before it for the `else` to run.
    pub(super) fn if_step(&mut self, test: &'m Expr, body: &'m [Stmt]) -> IfStep<A> {
        // An `else` on one rank (`if rank != 0: ... elif`) is not told: it reports more, not less.
        let (only_if_unset, one_rank) = match self.if_test(test) {
            IfTest::OnlyElse => return IfStep::OnlyElse,
            IfTest::OnlyBody => return IfStep::OnlyBody,
            IfTest::Fork(span, child_is_body) => return IfStep::Fork(span, child_is_body),
            IfTest::Body {
                only_if_unset,
                one_rank,
            } => (only_if_unset, one_rank == Some(true)),
        };
        let before = self.snapshot();
        let flow_body = self.run_if_body(test, body, only_if_unset, one_rank);
        let after_body = self.snapshot();
        self.restore(before);
        IfStep::Branch(after_body, flow_body)
    }

    /// An `if` with no `elif`: its branches are joined by the names they write (see `trail`).
    pub(super) fn exec_plain_if(
        &mut self,
        test: &'m Expr,
        body: &'m [Stmt],
        orelse: &'m [Stmt],
    ) -> Flow {
        match self.if_test(test) {
            IfTest::OnlyElse => self.exec_block(orelse),
            IfTest::OnlyBody => self.run_if_body(test, body, false, false),
            IfTest::Fork(span, child_is_body) => {
                self.fork_branches(span, child_is_body, body, orelse)
            }
            IfTest::Body {
                only_if_unset,
                one_rank,
            } => {
                // `if rank != 0: ... else: ...`: the `else` runs on one rank.
                let else_one_rank = u32::from(one_rank == Some(false));
                self.control.one_rank_depth += else_one_rank;
                let flow = self.exec_branches(
                    |me: &mut Self| {
                        me.control.one_rank_depth -= else_one_rank;
                        let flow =
                            me.run_if_body(test, body, only_if_unset, one_rank == Some(true));
                        me.control.one_rank_depth += else_one_rank;
                        flow
                    },
                    orelse,
                );
                self.control.one_rank_depth -= else_one_rank;
                flow
            }
        }
    }

    /// Evaluates an `if`'s test: whether its body may run, or runs in a forked child.
    pub(super) fn if_test(&mut self, test: &'m Expr) -> IfTest {
        if is_type_checking(test)
            || is_main_guard(test) && (self.proc_ref().reimport || self.cur != self.main)
        {
            return IfTest::OnlyElse;
        }
        let seen = std::mem::replace(&mut self.control.start_query_seen, false);
        self.answered.clear();
        let tested = self.eval(test);
        let only_if_unset =
            std::mem::replace(&mut self.control.start_query_seen, seen) && tests_for_none(test);
        let one_rank = match tested {
            Value::OneRank(holds) => Some(holds),
            _ => None,
        };
        match self.fork_test(test, &tested) {
            Some((span, child_is_body)) => IfTest::Fork(span, child_is_body),
            // A test of values known here (`if num_proc is None:` with the default bound): the
            // other branch cannot run.
            None if !only_if_unset => match self.decide(test) {
                Some(true) => IfTest::OnlyBody,
                Some(false) => IfTest::OnlyElse,
                None => IfTest::Body {
                    only_if_unset,
                    one_rank,
                },
            },
            None => IfTest::Body {
                only_if_unset,
                one_rank,
            },
        }
    }

    /// Runs an `if`'s body with the flags it sets around it.
    pub(super) fn run_if_body(
        &mut self,
        test: &'m Expr,
        body: &'m [Stmt],
        only_if_unset: bool,
        one_rank: bool,
    ) -> Flow {
        self.control.unset_guard_depth += u32::from(only_if_unset);
        self.control.one_rank_depth += u32::from(one_rank);
        // The main program's guarded block runs after every import: the program's run time.
        let run_time = self.control.run_time;
        self.control.run_time |= is_main_guard(test);
        let flow_body = self.exec_block(body);
        self.control.run_time = run_time;
        self.control.unset_guard_depth -= u32::from(only_if_unset);
        self.control.one_rank_depth -= u32::from(one_rank);
        flow_body
    }

    /// An `if` on `os.fork()`'s result: one branch runs in the forked child, the other here.
    pub(super) fn fork_branches(
        &mut self,
        fork_span: Span,
        child_is_body: bool,
        body: &'m [Stmt],
        orelse: &'m [Stmt],
    ) -> Flow {
        let (child, parent) = if child_is_body {
            (body, orelse)
        } else {
            (orelse, body)
        };
        self.run_forked_block(
            fork_span,
            &crate::libraries::processes::launchers::OS_FORK,
            child,
        );
        let flow = self.exec_block(parent);
        // `if os.fork(): sys.exit()` daemonises: what follows runs in the child.
        if self.proc_ref().exited && child.is_empty() {
            self.proc().exited = false;
            self.become_forked_child(fork_span);
            return Flow::Normal;
        }
        flow
    }

    /// Joins an `if`'s body (its state and flow) into the state the `else` left.
    pub(super) fn join_branches(
        &mut self,
        after_body: Snapshot<A>,
        flow_body: Flow,
        flow_else: Flow,
    ) -> Flow {
        match (flow_body, flow_else) {
            // The branch that jumped no longer binds names here, but what it did to the process
            // happened on that path: the caller or the next iteration sees it (`left`).
            (jumped, Flow::Normal) if jumped != Flow::Normal => {
                self.left(jumped, after_body.process);
                Flow::Normal
            }
            (Flow::Normal, jumped) if jumped != Flow::Normal => {
                let after_else = self.proc_ref().clone();
                self.restore(after_body);
                self.left(jumped, after_else);
                Flow::Normal
            }
            (body, orelse) => {
                self.join_with(after_body);
                super::returns::both(body, orelse)
            }
        }
    }

    /// Runs a loop body twice, so effects of one iteration are seen by the next (epoch 2 forks after
    /// epoch 1 initialised CUDA).
    pub(super) fn exec_loop(&mut self, body: &'m [Stmt]) {
        let passes = if self.control.loop_depth < MAX_LOOP_DEPTH {
            2
        } else {
            1
        };
        self.control.loop_depth += 1;
        for _ in 0..passes {
            let before = self.mark();
            self.exec_block(body);
            if self.proc_ref().exited {
                self.undo_to(&before);
                drop(self.close(before));
                break;
            }
            self.join_back(before);
        }
        self.control.loop_depth -= 1;
    }

    /// The current scope's bindings, the module's (a function may assign its `global`s), and the
    /// running process, for branch joins.
    pub(super) fn snapshot(&self) -> Snapshot<A> {
        let module = self
            .world
            .globals()
            .get(&self.cur)
            .cloned()
            .unwrap_or_default();
        let locals = self.frames.last().map(|f| f.locals.clone());
        Snapshot {
            locals,
            exact: self.frames.last().map(|f| f.exact.clone()),
            module,
            process: self.proc_ref().clone(),
        }
    }

    pub(super) fn restore(
        &mut self,
        Snapshot {
            locals,
            exact,
            module,
            process,
        }: Snapshot<A>,
    ) {
        if let (Some(f), Some(locals)) = (self.frames.last_mut(), locals) {
            f.locals = locals;
        }
        if let (Some(f), Some(exact)) = (self.frames.last_mut(), exact) {
            f.exact = exact;
        }
        if !self
            .world
            .globals()
            .get(&self.cur)
            .is_some_and(|g| Arc::ptr_eq(g, &module))
        {
            let cur = self.cur;
            self.world.globals_mut().insert(cur, module);
        }
        *self.proc() = process;
    }

    /// Joins what another path did to the process, unless that path ended the process.
    pub(super) fn join_process(&mut self, other: Process<A>) {
        if !other.exited {
            let exited = self.proc_ref().exited;
            self.proc().join(other);
            self.proc().exited = exited;
        }
    }

    /// Joins another path's state into the current one.
    pub(super) fn join_with(
        &mut self,
        Snapshot {
            locals,
            exact,
            module,
            process,
        }: Snapshot<A>,
    ) {
        if let (Some(f), Some(locals)) = (self.frames.last_mut(), locals) {
            join_scope(&mut f.locals, &locals);
        }
        if let (Some(f), Some(other)) = (self.frames.last_mut(), exact) {
            // Exact after the join only where both paths hold the same literal.
            f.exact.retain(|(n, v)| {
                other
                    .iter()
                    .any(|(m, w)| m == n && super::value::same(v, w))
            });
        }
        let unchanged = self
            .world
            .globals()
            .get(&self.cur)
            .is_some_and(|g| Arc::ptr_eq(g, &module));
        if !unchanged {
            let cur = self.cur;
            join_scope(self.world.globals_mut().entry(cur).or_default(), &module);
        }
        self.proc().join(process);
    }
}

/// An `elif` chain keeps at most this many branch states before joining them into one: no real
/// chain is this long, and a generated one of 40,000 branches stays bounded.
pub(super) const MAX_PENDING_BRANCHES: usize = 64;

/// What an `if`'s test decided.
pub(super) enum IfStep<A> {
    /// An ordinary test: the body ran; its state and flow, to join with the `else`'s.
    Branch(Snapshot<A>, Flow),
    /// `if TYPE_CHECKING:`, or a main guard where the module is not `__main__`: only the `else`.
    OnlyElse,
    /// A test whose value is known to be true: only the body runs, and the chain ends here.
    OnlyBody,
    /// A test of `os.fork()`'s result at this span; whether the body is the child's branch.
    Fork(Span, bool),
}

/// What an `if`'s test decided, before its body runs.
pub(super) enum IfTest {
    /// `one_rank`: the test compares the rank with a constant; `Some(true)`: the body runs on
    /// one rank only, `Some(false)`: the `else` does.
    Body {
        only_if_unset: bool,
        one_rank: Option<bool>,
    },
    OnlyElse,
    OnlyBody,
    Fork(Span, bool),
}

/// A path's state at a branch, for joins: the function's locals (in a function), the running
/// module's globals, the process.
pub(super) struct Snapshot<A> {
    locals: Option<Scope>,
    exact: Option<Vec<(Name, Value)>>,
    module: Scope,
    process: Process<A>,
}

/// Joins another path's bindings into `current`; nothing to do when neither path bound anything.
pub(super) fn join_scope(current: &mut Scope, other: &Scope) {
    // Most joins change few bindings, or none: then the scope (maybe shared with a saved path)
    // is not copied, and the bindings both paths agree on are not joined again.
    if Arc::ptr_eq(current, other)
        || other
            .iter()
            .all(|(name, value)| current.get(name).is_some_and(|mine| mine.absorbs(value)))
    {
        return;
    }
    let current = Arc::make_mut(current);
    for (name, value) in other.iter() {
        match current.get_mut(name) {
            Some(mine) if mine.absorbs(value) => {}
            Some(mine) => *mine = std::mem::take(mine).join(value.clone()),
            None => {
                current.insert(name.clone(), Value::Unknown.join(value.clone()));
            }
        }
    }
}

/// `call() is None`, `call() == None` or `not call()`: the body runs only when the call's result
/// is empty (for `get_start_method(allow_none=True)`, when no start method is fixed yet).
pub(super) fn tests_for_none(test: &Expr) -> bool {
    match &test.kind {
        ExprKind::Not(inner) => matches!(inner.kind, ExprKind::Call { .. }),
        ExprKind::Compare {
            left,
            ops,
            comparators,
        } => {
            matches!(left.kind, ExprKind::Call { .. })
                && matches!(ops[..], [CmpOp::Is | CmpOp::Eq])
                && matches!(
                    comparators[..],
                    [Expr {
                        kind: ExprKind::NoneLiteral,
                        ..
                    }]
                )
        }
        _ => false,
    }
}
