//! Statements and expressions: program order, scopes, branches, loops, assignments and name lookup.

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

use super::imports::top_name;
use super::names::{is_main_guard, is_type_checking};
use gpulint_core::analysis::Analysis;
use gpulint_core::effect::{
    Binding, CudaInitSite, CudaObject, DeviceIndex, Effect, GlobalName, Init, VisibilityWrite,
};

use super::process::Process;
use super::trail::Place;
use super::value::{dotted, Device, Name, Value};
use super::{Frame, Interp, Object, Scope, MAX_CALL_DEPTH, MAX_LOOP_DEPTH};
use crate::libraries::{self, Behaviour, EnvRole};
use crate::model::{CmpOp, Expr, ExprKind, FuncId, Stmt, StmtKind};
use crate::source::Span;

/// An `elif` chain keeps at most this many branch states before joining them into one: no real
/// chain is this long, and a generated one of 40,000 branches stays bounded.
const MAX_PENDING_BRANCHES: usize = 64;

/// How a block of statements ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Flow {
    Normal,
    /// `break`, `continue` or `raise`: the rest of the block does not run.
    Jump,
    /// `return` on every path that left: the rest of the function does not run (see `returns`).
    Return,
}

impl<'m, A: Analysis> Interp<'m, A> {
    pub(super) fn exec_block(&mut self, stmts: &'m [Stmt]) -> Flow {
        for stmt in stmts {
            if self.proc_ref().exited {
                return Flow::Jump;
            }
            if self.frames.is_empty() && self.budget.statement_budgets {
                self.budget.fuel = super::STATEMENT_FUEL;
                if self.entry.main_guard == Some(stmt.span) && self.procs.len() == 1 {
                    self.entry.import_state = Some((self.world.save(), self.proc_ref().clone()));
                }
            }
            let flow = self.exec(stmt);
            if flow != Flow::Normal {
                return flow;
            }
        }
        Flow::Normal
    }

    fn exec(&mut self, stmt: &'m Stmt) -> Flow {
        self.budget.spend();
        match &stmt.kind {
            StmtKind::Import(names) => {
                for name in names {
                    if let Some(chain) = self.import_first_party(0, &name.name) {
                        let bound = match &name.asname {
                            Some(alias) => (alias.as_str(), chain.last()),
                            None => (top_name(&name.name), chain.first()),
                        };
                        if let (name, Some(node)) = bound {
                            self.store(name, Value::Module(*node), stmt.span);
                        }
                        continue;
                    }
                    self.import_effect(&name.name, stmt.span);
                    match &name.asname {
                        Some(alias) => self.store(
                            alias,
                            Value::Qualified(name.name.as_str().into()),
                            stmt.span,
                        ),
                        None => {
                            let top = top_name(&name.name);
                            self.store(top, Value::Qualified(top.into()), stmt.span);
                        }
                    }
                }
            }
            StmtKind::ImportFrom {
                module,
                level,
                names,
            } => {
                let base = module.as_deref().unwrap_or("");
                let first_party = self.import_first_party(*level, base);
                for name in names {
                    if name.name == "*" {
                        if let Some(node) = first_party.as_ref().and_then(|c| c.last()) {
                            self.import_star(*node, stmt.span);
                        }
                        continue;
                    }
                    let bound = name.asname.as_deref().unwrap_or(&name.name);
                    let value = match (&first_party, module) {
                        (Some(chain), _) => {
                            let node = *chain.last().expect("a resolved import names a module");
                            self.import_name(node, *level, base, &name.name)
                        }
                        (None, Some(module)) if *level == 0 => {
                            let full = dotted(module, &name.name);
                            self.import_effect(&full, stmt.span);
                            Value::Qualified(full)
                        }
                        // A relative import of a module not in the program (not found on disk).
                        _ => Value::Unknown,
                    };
                    self.store(bound, value, stmt.span);
                }
            }
            StmtKind::Def(id) => {
                let func = self.func(*id);
                self.eval_decorators(&func.decorators);
                self.register_task(*id, &func.decorators);
                // Only the names the closure reads: copying every enclosing local into every
                // nested function would make a function of many nested defs quadratic.
                let free = self.free_names(*id);
                let captures = self.frames.last().map(|f| {
                    let mut all: HashMap<Name, Value> = HashMap::default();
                    for name in free.iter() {
                        let value = f
                            .locals
                            .get(name.as_str())
                            .or_else(|| f.captures.as_ref().and_then(|c| c.get(name.as_str())));
                        if let Some(v) = value {
                            all.insert(Name::from(name.as_str()), v.clone());
                        }
                    }
                    Arc::new(all)
                });
                if self.defines_main_only() {
                    self.entry
                        .main_only
                        .insert(super::Definition::Function(*id));
                }
                self.store(&func.name, Value::Function(*id, captures), stmt.span);
            }
            StmtKind::Class(id) => {
                if self.defines_main_only() {
                    self.entry.main_only.insert(super::Definition::Class(*id));
                }
                let class = self.class(*id);
                self.eval_decorators(&class.decorators);
                let bases: Vec<Value> = class.bases.iter().map(|b| self.eval(b)).collect();
                self.world.set_class_bases(*id, bases);
                for s in &class.body {
                    if let StmtKind::Assign { targets, value } = &s.kind {
                        let v = self.eval(value);
                        for t in targets {
                            if let ExprKind::Name(name) = &t.kind {
                                let v = self.as_global(
                                    v.clone(),
                                    &format!("{}.{name}", class.name),
                                    s.span,
                                );
                                self.world
                                    .class_attrs_mut(*id)
                                    .insert(Name::from(&**name), v);
                            }
                        }
                    }
                }
                self.store(&class.name, Value::Class(*id), stmt.span);
            }
            StmtKind::Assign { targets, value } => {
                let v = self.eval(value);
                for t in targets {
                    self.assign(t, v.clone(), stmt.span);
                }
                if super::decide::is_literal(value) {
                    self.assigned_literal(targets, &v);
                }
            }
            StmtKind::AugAssign { target, value } => {
                self.eval(value);
                self.eval(target);
                if let ExprKind::Name(name) = &target.kind {
                    self.forget_exact(name);
                }
            }
            StmtKind::Expr(e) => {
                let result = self.eval(e);
                self.move_in_place(e, result, stmt.span);
            }
            StmtKind::If { test, body, orelse } => return self.exec_if(test, body, orelse),
            StmtKind::For {
                target,
                iter,
                body,
                orelse,
            } => {
                let iterable = self.eval(iter);
                let item = self.iterate(&iterable, iter.span);
                self.assign(target, item, stmt.span);
                self.exec_loop(body);
                self.exec_block(orelse);
            }
            StmtKind::While { test, body, orelse } => {
                self.eval(test);
                self.exec_loop(body);
                self.exec_block(orelse);
            }
            StmtKind::With { items, body } => return self.exec_with(items, body, stmt.span),
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finally,
            } => {
                let caught = !handlers.is_empty();
                self.control.try_depth += u32::from(caught);
                self.exec_block(body);
                self.control.try_depth -= u32::from(caught);
                for handler in handlers {
                    self.exec_maybe(handler);
                }
                self.exec_block(orelse);
                return self.exec_block(finally);
            }
            StmtKind::Match { subject, cases } => {
                self.eval(subject);
                for case in cases {
                    self.exec_maybe(case);
                }
            }
            StmtKind::Return(value) => {
                let v = value.as_ref().map_or(Value::None, |e| self.eval(e));
                if let Some(frame) = self.frames.last_mut() {
                    let prev = std::mem::take(&mut frame.returns);
                    frame.returns = match prev {
                        Value::Unknown => v,
                        prev => prev.join(v),
                    };
                }
                return Flow::Return;
            }
            StmtKind::Raise(value) => {
                if let Some(e) = value {
                    self.eval(e);
                }
                return Flow::Jump;
            }
            StmtKind::Global(names) => {
                if let Some(frame) = self.frames.last_mut() {
                    frame.declared_global.extend(names.iter().cloned());
                }
            }
            StmtKind::Break | StmtKind::Continue => return Flow::Jump,
            StmtKind::Other(exprs) => {
                for e in exprs {
                    self.eval(e);
                }
            }
        }
        Flow::Normal
    }

    /// A module-level function of the main module that a task decorator registers (`@app.task`),
    /// or a request handler under a preloading server: a worker that imports this module forks the
    /// children that run it.
    fn register_task(&mut self, id: FuncId, decorators: &'m [Expr]) {
        if !self.frames.is_empty() || self.cur != self.main || self.procs.len() != 1 {
            return;
        }
        for d in decorators {
            let callee = match &d.kind {
                ExprKind::Call { func, .. } => func,
                _ => d,
            };
            let Value::Qualified(name) = self.eval(callee) else {
                continue;
            };
            let kind = match libraries::lookup(&name) {
                Some((libraries::Behaviour::ForkedTask, _)) => {
                    gpulint_core::effect::ChildKind::TaskWorker
                }
                Some((libraries::Behaviour::HandlesRequests, _))
                    if self.settings.server_preloads =>
                {
                    gpulint_core::effect::ChildKind::ServerWorker
                }
                _ => continue,
            };
            self.entry.forked_tasks.push((id, d.span, kind));
            return;
        }
    }

    /// Decorator arguments run when the definition does (`@skipIf(not torch.cuda.is_available())`).
    fn eval_decorators(&mut self, decorators: &'m [Expr]) {
        for d in decorators {
            if let ExprKind::Call { args, keywords, .. } = &d.kind {
                for a in args {
                    self.eval(a);
                }
                for k in keywords {
                    self.eval(&k.value);
                }
            }
        }
    }

    /// An `if`, and the `elif`s after it. An `elif` chain is an `if` nested in each `else`: it runs
    /// as a loop, and the branches are joined afterwards from the innermost out, as the nesting
    /// says, so that a chain of thousands of branches needs no deep recursion.
    fn exec_if(&mut self, test: &'m Expr, body: &'m [Stmt], orelse: &'m [Stmt]) -> Flow {
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
    fn join_pending(&mut self, mut pending: Vec<(Snapshot<A>, Flow)>) -> (Snapshot<A>, Flow) {
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
    fn if_step(&mut self, test: &'m Expr, body: &'m [Stmt]) -> IfStep<A> {
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
    fn exec_plain_if(&mut self, test: &'m Expr, body: &'m [Stmt], orelse: &'m [Stmt]) -> Flow {
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
    fn if_test(&mut self, test: &'m Expr) -> IfTest {
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
    fn run_if_body(
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
    fn fork_branches(
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
        self.run_forked_block(fork_span, gpulint_core::effect::ChildKind::OsFork, child);
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
    fn join_branches(&mut self, after_body: Snapshot<A>, flow_body: Flow, flow_else: Flow) -> Flow {
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
    fn exec_loop(&mut self, body: &'m [Stmt]) {
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
    fn snapshot(&self) -> Snapshot<A> {
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

    fn restore(
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
    fn join_with(
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

    pub(super) fn store(&mut self, name: &str, value: Value, span: Span) {
        let to_global = match self.frames.last() {
            None => true,
            Some(f) => f.declared_global.contains(name),
        };
        if to_global {
            if self.control.run_time {
                self.global_written(name, span, false);
            }
            let value = self.as_global(value, name, span);
            let name = Name::from(name);
            let noted = self.in_branch().then(|| name.clone());
            let old = self.scope_mut().insert(name, value);
            if let Some(name) = noted {
                self.note_write(Place::Module(self.cur), name, old);
            }
        } else {
            let name = Name::from(name);
            let noted = self.in_branch().then(|| name.clone());
            let Some(frame) = self.frames.last_mut() else {
                return;
            };
            frame.forget_exact(&name);
            let old = Arc::make_mut(&mut frame.locals).insert(name, value);
            if let Some(name) = noted {
                self.note_write(Place::Locals(self.frames.len()), name, old);
            }
        }
    }

    /// Marks a CUDA object stored in a global binding with that binding.
    pub(super) fn as_global(&self, value: Value, name: &str, span: Span) -> Value {
        match value {
            Value::Cuda(mut obj) if obj.global.is_none() => {
                obj.global = Some((name.into(), span));
                Value::Cuda(obj)
            }
            other => other,
        }
    }

    pub(super) fn assign(&mut self, target: &'m Expr, value: Value, span: Span) {
        match &target.kind {
            ExprKind::Name(name) => self.store(name, value, span),
            ExprKind::Attribute { value: obj, attr } => {
                let owner = self.eval_quiet(obj);
                if let Some(Object::Channel(channel)) = self.object(&owner) {
                    let channel = *channel;
                    self.send_values(span, channel, &[value], "an attribute assignment");
                    return;
                }
                match owner.primary().clone() {
                    Value::Object(id) => {
                        let instance = match self.object_mut(id) {
                            Some(Object::Instance { attrs, .. }) => {
                                attrs.insert(Name::from(&**attr), value);
                                true
                            }
                            _ => false,
                        };
                        if instance {
                            self.changed_in_place(obj, span);
                        }
                    }
                    Value::Class(id) => {
                        let name = format!("{}.{attr}", self.class(id).name);
                        let value = self.as_global(value, &name, span);
                        self.world
                            .class_attrs_mut(id)
                            .insert(Name::from(&**attr), value);
                    }
                    _ => {}
                }
            }
            ExprKind::Subscript {
                value: container,
                index,
            } => {
                let owner = self.eval_quiet(container);
                let key = self.eval(index);
                if let (Value::Qualified(q), Some(k)) = (&owner, key.as_str()) {
                    if is_environ(q) {
                        self.write_env(k, &value, span);
                    }
                }
                if let (Value::Mapping(entries), Some(k), ExprKind::Name(name)) =
                    (&owner, key.as_str(), &container.kind)
                {
                    // `env["MASTER_ADDR"] = host`: later readers of the dict see the key.
                    let updated = super::value::with_entries(entries, [(k.to_string(), value)]);
                    self.store(name, updated, span);
                } else if let Some(Object::Channel(channel)) = self.object(&owner) {
                    let channel = *channel;
                    self.send_values(span, channel, &[value], "an item assignment");
                } else if is_container(&owner) {
                    self.changed_in_place(container, span);
                }
            }
            ExprKind::Tuple(targets) | ExprKind::List(targets) => {
                let items = match value {
                    Value::Sequence(items) if items.len() == targets.len() => items.to_vec(),
                    other => vec![other; targets.len()],
                };
                for (t, v) in targets.iter().zip(items) {
                    self.assign(t, v, span);
                }
            }
            ExprKind::Starred(inner) => self.assign(inner, Value::Unknown, span),
            _ => {
                self.eval(target);
            }
        }
    }

    /// `model.to("cpu")`, `model.cuda()` as a statement: a module moves in place, so the
    /// receiver (a name or an attribute) now holds what the move returned. (A tensor's move whose
    /// result is dropped does nothing; rebinding it mis-models only code that is wrong anyway.)
    fn move_in_place(&mut self, e: &'m Expr, result: Value, span: Span) {
        let ExprKind::Call { func, .. } = &e.kind else {
            return;
        };
        let ExprKind::Attribute { value: recv, attr } = &func.kind else {
            return;
        };
        // Every expression statement that calls a method comes here: the row lookup, cheaper
        // than reading the receiver, goes first.
        let moves = libraries::method(attr, |_, does| {
            matches!(
                does,
                libraries::MethodBehaviour::MovesTo { .. }
                    | libraries::MethodBehaviour::MovesToCuda { .. }
                    | libraries::MethodBehaviour::MovesToCpu
            )
        });
        if moves.is_none() {
            return;
        }
        // What the receiver holds now, read without using it: a project's own object with a
        // method of that name is not a module being moved.
        let before = match &recv.kind {
            ExprKind::Name(n) => self.lookup(n).unwrap_or_default(),
            ExprKind::Attribute { value, attr } => match &value.kind {
                ExprKind::Name(owner) => {
                    let owner = self.lookup(owner).unwrap_or_default();
                    self.attribute(&owner, attr)
                }
                _ => return,
            },
            _ => return,
        };
        let moved = matches!(before, Value::Cuda(_))
            || matches!(result, Value::Cuda(_))
                && matches!(before, Value::Unknown | Value::HostTensor { .. });
        if moved {
            self.assign(recv, result, span);
        }
    }

    /// An environment write: visibility narrowed before CUDA starts binds the device.
    pub(super) fn write_env(&mut self, key: &str, value: &Value, span: Span) {
        let text = match value {
            Value::Str(s) => Some(s.to_string()),
            Value::Int(i) => Some(i.to_string()),
            _ => None,
        };
        let process = self.proc();
        let narrows =
            libraries::env_role(key) == Some(EnvRole::NarrowsVisibility) && process.cuda.is_none();
        if narrows {
            process.bound.get_or_insert(span);
        }
        // A value gpulint cannot tell is kept as "?": the variable is set, to something.
        let kept = match value {
            Value::LaunchVisibility => String::from(LAUNCH_SELECTION),
            _ => text.clone().unwrap_or_else(|| String::from("?")),
        };
        Arc::make_mut(&mut process.env).insert(key.to_string(), kept);
        self.rendezvous_written(key, value, span);
        if narrows {
            self.emit(Effect::DeviceBound {
                span,
                binding: Binding::Narrowed,
                chooses: false,
            });
        }
        self.emit(Effect::EnvWritten {
            span,
            key: key.into(),
            value: text.map(Into::into),
            visibility: visibility_write(key, value),
        });
    }

    /// A global bound at run time (see `Interp::run_time`), in the running module.
    fn global_written(&mut self, name: &str, span: Span, in_place: bool) {
        let global = GlobalName {
            module: self.cur,
            name: name.into(),
        };
        self.emit(Effect::GlobalWritten {
            span,
            global,
            in_place,
        });
    }

    /// `target[k] = v`, `target.a = v` or `target.update(...)`: at run time, on a module global,
    /// a change to what the global holds.
    pub(super) fn changed_in_place(&mut self, target: &Expr, span: Span) {
        if let ExprKind::Name(name) = &target.kind {
            if self.control.run_time && self.is_global_name(name) && self.global(name).is_some() {
                self.global_written(name, span, true);
            }
        }
    }

    /// A read of a global by a child that imported the program afresh. Definitions and imports
    /// are the same in every interpreter: only data can differ.
    fn global_read(&mut self, name: &str, span: Span, value: &Value) {
        if matches!(
            value,
            Value::Function(..) | Value::Class(_) | Value::Module(_) | Value::Qualified(_)
        ) || !self.is_global_name(name)
        {
            return;
        }
        // A memo of this process ("already configured here"): the reader writes it, itself or
        // through a function of its module it calls (`if c != LAST: configure(c)`).
        let owner = match self.frames.last() {
            Some(f) => {
                let func = f.func;
                self.written_globals(func).iter().any(|n| n == name)
                    || self.called_names(func).iter().any(|callee| {
                        matches!(self.global(callee), Some(Value::Function(id, ..))
                            if id.file == func.file
                                && self.written_globals(*id).iter().any(|n| n == name))
                    })
            }
            None => false,
        };
        let defined = self.global(name).is_some();
        self.emit(Effect::GlobalRead {
            span,
            global: GlobalName {
                module: self.cur,
                name: name.into(),
            },
            defined,
            owner,
        });
    }

    /// A `def` or `class` the main program runs under its main guard, at module level; for an
    /// interactive main, any at module level.
    fn defines_main_only(&self) -> bool {
        self.frames.is_empty()
            && (self.control.run_time || self.entry.interactive)
            && self.cur == self.main
    }

    pub(super) fn lookup(&self, name: &str) -> Option<Value> {
        if let Some(frame) = self.frames.last() {
            if !frame.declared_global.contains(name) {
                if let Some(v) = frame.locals.get(name) {
                    return Some(v.clone());
                }
                if let Some(v) = frame.captures.as_ref().and_then(|c| c.get(name)) {
                    return Some(v.clone());
                }
            }
        }
        self.global(name).cloned()
    }

    /// Whether `name` resolves to a module-level binding here.
    fn is_global_name(&self, name: &str) -> bool {
        match self.frames.last() {
            None => true,
            Some(f) => {
                f.declared_global.contains(name)
                    || (!f.locals.contains_key(name)
                        && !f.captures.as_ref().is_some_and(|c| c.contains_key(name)))
            }
        }
    }

    /// A name no scope binds: the builtin of that name, made once per analysis.
    fn builtin(&mut self, name: &'m str) -> Value {
        self.builtins
            .entry(name)
            .or_insert_with(|| Value::Qualified(format!("builtins.{name}").into()))
            .clone()
    }

    /// Evaluates without counting reads of CUDA objects as uses (assignment targets).
    fn eval_quiet(&mut self, expr: &'m Expr) -> Value {
        match &expr.kind {
            ExprKind::Name(name) => self.lookup(name).unwrap_or_default(),
            _ => self.eval(expr),
        }
    }

    pub(super) fn eval(&mut self, expr: &'m Expr) -> Value {
        self.budget.spend();
        match &expr.kind {
            ExprKind::Name(name) => {
                let found = self.lookup(name);
                if self.proc_ref().spawned {
                    let read = found.clone().unwrap_or(Value::Unknown);
                    self.global_read(name, expr.span, &read);
                }
                let v = match found {
                    Some(v) => v,
                    None => self.builtin(name),
                };
                if let Value::Cuda(obj) = &v {
                    // A local holding a global's object (`m = get_model()`) uses that global too.
                    let global = self.is_global_name(name) || obj.global.is_some();
                    self.use_cuda_object(obj, expr.span, name, global);
                }
                v
            }
            ExprKind::Attribute { value, attr } => {
                let owner = self.eval(value);
                let v = self.attribute(&owner, attr);
                if let (Value::Cuda(obj), false) = (&v, matches!(owner, Value::Cuda(_))) {
                    self.use_cuda_object(obj, expr.span, attr, obj.global.is_some());
                }
                v
            }
            ExprKind::Call {
                func,
                args,
                keywords,
            } => self.eval_call(expr, func, args, keywords),
            ExprKind::Str(s) => Value::Str(s.clone()),
            ExprKind::Int(i) => Value::Int(*i),
            ExprKind::Bool(b) => Value::Bool(*b),
            ExprKind::NoneLiteral => Value::None,
            ExprKind::FString { template, parts } => {
                let values: Vec<Value> = parts.iter().map(|p| self.eval(p)).collect();
                if parts.is_empty() {
                    Value::Str((&**template).into())
                } else if template.starts_with("cuda:{}") {
                    match values.first() {
                        Some(Value::Int(i)) if &**template == "cuda:{}" => {
                            Value::Str(format!("cuda:{i}").into())
                        }
                        Some(Value::GlobalRank(local)) if &**template == "cuda:{}" => {
                            Value::GlobalRank(*local)
                        }
                        _ => Value::Device(Device::Cuda(DeviceIndex::PerWorker)),
                    }
                } else if let ("{}", [Value::GlobalRank(local)]) = (&**template, &values[..]) {
                    Value::GlobalRank(*local)
                } else if values.iter().any(|v| matches!(v, Value::Rank)) && &**template == "{}" {
                    Value::Rank
                } else if template.starts_with("--") {
                    // A command-line option (`f"--nnodes={n}"`): its name is known, its value not.
                    Value::Str((&**template).into())
                } else {
                    Value::Unknown
                }
            }
            ExprKind::Lambda(id) => {
                let captures = self.frames.last().map(|f| Arc::clone(&f.locals));
                Value::Function(*id, captures)
            }
            ExprKind::IfExp { test, body, orelse } => {
                self.eval(test);
                let a = self.eval(body);
                let b = self.eval(orelse);
                a.join(b)
            }
            ExprKind::Compare {
                left,
                ops,
                comparators,
            } => {
                let left = self.eval(left);
                let right: Vec<Value> = comparators.iter().map(|c| self.eval(c)).collect();
                super::one_rank::compare(&left, ops, &right)
            }
            ExprKind::BoolOp { and, values } => {
                let values = values.iter().map(|v| self.eval(v)).collect();
                super::one_rank::bool_op(*and, values)
            }
            ExprKind::Not(inner) => {
                let inner = self.eval(inner);
                super::one_rank::not(inner)
            }
            ExprKind::Subscript { value, index } => {
                let container = self.eval(value);
                let key = self.eval(index);
                self.subscript(container, key)
            }
            ExprKind::Tuple(items) | ExprKind::List(items) => {
                Value::seq(items.iter().map(|e| self.eval(e)).collect())
            }
            ExprKind::Dict(items) => {
                let mut mapping = Some(Vec::new());
                for (k, v) in items {
                    let key = k.as_ref().map(|k| self.eval(k));
                    let value = self.eval(v);
                    match (key, &mut mapping) {
                        (Some(Value::Str(key)), Some(entries)) => {
                            entries.push((key.to_string(), value))
                        }
                        _ => mapping = None,
                    }
                }
                mapping.map_or(Value::Unknown, |m| Value::Mapping(Arc::new(m)))
            }
            ExprKind::Named { target, value } => {
                let v = self.eval(value);
                self.assign(target, v.clone(), expr.span);
                v
            }
            ExprKind::Starred(inner) => self.eval(inner),
            ExprKind::Comprehension {
                generators,
                elements,
            } => {
                for g in generators {
                    let iterable = self.eval(&g.iter);
                    let item = self.iterate(&iterable, g.iter.span);
                    self.assign(&g.target, item, expr.span);
                    for c in &g.conditions {
                        self.eval(c);
                    }
                }
                let mut items: Vec<Value> = elements.iter().map(|e| self.eval(e)).collect();
                // A dict's: its keys are names (`{name: p.cpu() for name, p in ...}`); what it
                // holds, for a device or a save, is its values.
                if let [_, value] = &mut items[..] {
                    items = vec![std::mem::take(value)];
                }
                Value::seq(items)
            }
            ExprKind::MatMul(operands) => {
                let values: Vec<Value> = operands.iter().map(|e| self.eval(e)).collect();
                self.host_compute(expr.span, "`@`", &values)
                    .unwrap_or_else(|| derived(values))
            }
            ExprKind::Other(children) => {
                let values: Vec<Value> = children.iter().map(|e| self.eval(e)).collect();
                derived(values)
            }
        }
    }

    fn subscript(&mut self, container: Value, key: Value) -> Value {
        match (&container, &key) {
            (Value::Qualified(q), Value::Str(k)) if is_environ(q) => self.read_env(k),
            (Value::Sequence(items), Value::Int(i)) => items.at(*i),
            (Value::Sequence(items), _) => items.iter().cloned().fold(Value::Unknown, Value::join),
            (Value::Cuda(obj), _) => Value::cuda(obj.derived()),
            (Value::Mapping(entries), Value::Str(k)) => entries
                .iter()
                .find(|(key, _)| **key == **k)
                .map_or(Value::Unknown, |(_, v)| v.clone()),
            _ => Value::Unknown,
        }
    }

    /// Reading `os.environ[key]`: a rank variable marks this process as a worker.
    pub(super) fn read_env(&mut self, key: &str) -> Value {
        match libraries::env_role(key) {
            Some(EnvRole::Rank) => {
                self.proc().per_worker = true;
                return Value::Rank;
            }
            Some(EnvRole::GlobalRank) => {
                self.proc().per_worker = true;
                return Value::GlobalRank(libraries::local_rank_of(key));
            }
            _ => {}
        }
        let launched = matches!(
            libraries::env_role(key),
            Some(EnvRole::NarrowsVisibility | EnvRole::LauncherVisibility)
        );
        match self.env_var(key) {
            Some(v) if v == LAUNCH_SELECTION => Value::LaunchVisibility,
            Some(v) => Value::Str(v.as_str().into()),
            None if launched => Value::LaunchVisibility,
            None => Value::Unknown,
        }
    }

    /// The value produced by iterating `iterable` once (and, for a DataLoader, its workers' start).
    fn iterate(&mut self, iterable: &Value, span: Span) -> Value {
        match iterable.primary() {
            Value::Sequence(items) => items.iter().cloned().fold(Value::Unknown, Value::join),
            Value::Object(id) => match self.world.object(*id) {
                Some(Object::Loader { .. }) => self.iterate_loader(*id, span),
                _ => Value::Unknown,
            },
            Value::Cuda(obj) => Value::cuda(obj.derived()),
            _ => Value::Unknown,
        }
    }

    fn import_effect(&mut self, module: &str, span: Span) {
        let root = module.split('.').next().unwrap_or(module);
        if let Some(native) = self.p.native_module(root, self.cur) {
            // The module's initialiser runs at its first import, in this process: CUDA is
            // initialised where the other frontend saw it.
            let site = CudaInitSite {
                span: native.span,
                level: native.level,
                what: format!(
                    "`import {root}` runs the extension module's initialiser: {}",
                    native.what
                )
                .into(),
            };
            self.cuda_event_at(site, true);
        }
        let Some(row) = libraries::import_effect(module) else {
            return;
        };
        let what = format!("`import {}` {}", row.module, row.reason);
        self.cuda_event(span, row.init, what, true);
        let older = row.sets_env_since.is_some_and(|since| {
            let package = row.module.split('.').next().unwrap_or(row.module);
            self.settings.requirements.at_least(package, since) == Some(false)
        });
        if let (Some((key, value)), false) = (row.sets_env, older) {
            self.write_env(key, &Value::Str(value.into()), span);
        }
    }

    /// A CUDA effect in the running process: the state moves on, and the analyses hear of it.
    pub(super) fn cuda_event(
        &mut self,
        span: Span,
        init: Init,
        what: String,
        fails_in_child: bool,
    ) {
        if init == Init::None {
            return;
        }
        let site = CudaInitSite {
            span,
            level: init,
            what: what.into(),
        };
        self.cuda_event_at(site, fails_in_child);
    }

    /// [`Self::cuda_event`] at a site already built (another file's, another frontend's).
    fn cuda_event_at(&mut self, site: CudaInitSite, fails_in_child: bool) {
        let process = self.proc();
        if process.cuda.is_none() {
            process.cuda = Some(site.clone());
        }
        self.emit(Effect::CudaInit {
            site,
            fails_in_child,
        });
    }

    /// A read of a CUDA object: a use in this process.
    pub(super) fn use_cuda_object(
        &mut self,
        obj: &CudaObject,
        span: Span,
        name: &str,
        global: bool,
    ) {
        // Made in the parent on the device of an object not known here (`x.device`): that may
        // be the CPU, so the child's use is not known to touch CUDA.
        if obj.index == DeviceIndex::Inherited && obj.process != self.proc_ref().id {
            return;
        }
        let what = if obj.process == self.proc_ref().id {
            format!("uses `{name}`, a CUDA object")
        } else {
            format!("uses `{name}`, a CUDA object created in the parent")
        };
        self.emit(Effect::CudaUsed {
            object: obj.clone(),
            span,
            what: what.into(),
            through_global: global,
        });
    }

    /// Creates a CUDA object in the running process; `by_handle`: sent to another process, it
    /// travels as a CUDA IPC handle (see `CudaObject::by_handle`).
    pub(super) fn new_cuda_object(
        &mut self,
        span: Span,
        index: DeviceIndex,
        what: String,
        by_handle: bool,
    ) -> Value {
        self.cuda_event(span, Init::Context, what.clone(), true);
        let what = if index == DeviceIndex::Current && !what.contains("default device") {
            format!("{what}, on the current device")
        } else {
            what
        };
        let pinned = match index {
            DeviceIndex::Fixed(_) => true,
            DeviceIndex::Current => !self.device_bound(),
            DeviceIndex::PerWorker | DeviceIndex::Inherited => false,
        };
        let object = CudaObject {
            site: span,
            index,
            pinned,
            process: self.proc_ref().id,
            global: None,
            by_handle,
        };
        self.emit(Effect::CudaObjectCreated {
            object: object.clone(),
            what: what.into(),
        });
        Value::cuda(object)
    }

    /// Records that the call of `id` was cut short, once per function and reason.
    fn cut(&mut self, id: FuncId, reason: &'static str, repeat: bool) {
        self.memo.cuts += 1;
        let func = self.func(id);
        if !self
            .budget
            .cuts
            .iter()
            .any(|c| c.span == func.name_span && c.reason == reason)
        {
            self.budget.cuts.push(super::Cut {
                function: func.name.clone(),
                span: func.name_span,
                reason,
                repeat,
            });
        }
    }

    /// Calls a function of the module with bound arguments.
    pub(super) fn call_function(
        &mut self,
        id: FuncId,
        captures: Option<super::value::Captures>,
        receiver: Option<Value>,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> Value {
        if let Some(result) = self.call_cut(id) {
            return result;
        }
        self.entered.insert(id);
        let cached = self.is_cached(id);
        // A call from a function (an entry point's own call is made once) with plain arguments
        // may have run before from this state (see `memo`); a memoised result is a global.
        let recording = if self.memo.enabled
            && !self.world.dirty()
            && captures.is_none()
            && !self.frames.is_empty()
            && !cached
        {
            let key: Vec<Value> = receiver.iter().chain(&args).cloned().collect();
            match self.replay(super::memo::Callee::Function(id), &key, &kwargs) {
                Some(Ok(result)) => {
                    self.budget.last_result.insert(id, result.clone());
                    return result;
                }
                Some(Err(recording)) => Some((recording, key, kwargs.clone())),
                None => None,
            }
        } else {
            None
        };
        let func = self.func(id);
        let caller_module = self.push_call_frame(id, captures, receiver, args, &kwargs);
        let outer = self.returned.take();
        self.exec_block(&func.body);
        self.function_ended(outer);
        self.cur = caller_module;
        let frame = self.frames.pop();
        let result = frame.map(|f| f.returns).unwrap_or_default();
        if let Some((recording, key, kwargs)) = recording {
            self.record(
                super::memo::Callee::Function(id),
                &result,
                key,
                kwargs,
                recording,
            );
        }
        self.budget.last_result.insert(id, result.clone());
        if cached {
            // A memoised result is a global: its binding is where the object was placed on CUDA.
            let site = match &result {
                Value::Cuda(obj) => obj.site,
                _ => func.name_span,
            };
            return self.as_global(result, &format!("{}()", func.name), site);
        }
        result
    }

    /// The result of a call that is not followed (recursion, a budget), or `None` to follow it.
    pub(super) fn call_cut(&mut self, id: FuncId) -> Option<Value> {
        if self.frames.iter().any(|f| f.func == id) {
            // Recursion is cut silently; a recording must see it (see `memo`).
            self.memo.cuts += 1;
            return Some(Value::Unknown);
        }
        let cut = if self.budget.fuel == 0 {
            Some(("the statement's step budget ran out", false))
        } else if self.frames.len() >= MAX_CALL_DEPTH {
            Some(("calls nested too deep", false))
        } else {
            let count = self
                .budget
                .calls
                .entry((id, self.proc_ref().id))
                .or_default();
            *count += 1;
            (*count > super::CALLS_PER_FUNCTION)
                .then_some(("analysed often enough in this process", true))
        };
        let (reason, repeat) = cut?;
        self.cut(id, reason, repeat);
        // A function analysed often enough here did what it does already; one never reached
        // may have bound the device.
        if !repeat {
            let function = self.func(id).name_span;
            self.emit(Effect::NotFollowed { function });
        }
        Some(
            self.budget
                .last_result
                .get(&id)
                .cloned()
                .unwrap_or_default(),
        )
    }

    /// Binds a call's parameters in a new frame and makes the function's module current; returns
    /// the caller's module.
    pub(super) fn push_call_frame(
        &mut self,
        id: FuncId,
        captures: Option<super::value::Captures>,
        receiver: Option<Value>,
        args: Vec<Value>,
        kwargs: &[(String, Value)],
    ) -> crate::source::FileId {
        let func = self.func(id);
        // Defaults and the body see the globals of the module that defines the function.
        let caller_module = std::mem::replace(&mut self.cur, id.file);
        // Room for the parameters and a few locals: most bodies bind a handful, and growing the
        // table from empty rehashed it two or three times per call.
        let params = func.params.len()
            + usize::from(func.vararg.is_some())
            + usize::from(func.kwarg.is_some());
        let mut locals = HashMap::with_capacity_and_hasher(params + 4, Default::default());
        let entry = std::mem::take(&mut self.entry.entry_call);
        let mut exact = Vec::new();
        let mut positional = receiver.into_iter().chain(args);
        for param in &func.params {
            let given_kw = kwargs
                .iter()
                .find(|(k, _)| *k == param.name)
                .map(|(_, v)| v.clone());
            let passed = given_kw.is_some();
            let v = match (param.keyword_only, given_kw) {
                (_, Some(v)) => v,
                (false, None) => match positional.next() {
                    Some(v) => v,
                    None => param
                        .default
                        .as_ref()
                        .map_or(Value::Unknown, |d| self.eval(d)),
                },
                (true, None) => param
                    .default
                    .as_ref()
                    .map_or(Value::Unknown, |d| self.eval(d)),
            };
            // A default the caller left (an entry's callers are unknown): exact if a literal.
            let defaulted = !passed && !entry && !matches!(v, Value::Unknown);
            if defaulted
                && exact.len() < super::decide::MAX_EXACT
                && param
                    .default
                    .as_ref()
                    .is_some_and(super::decide::is_literal)
            {
                exact.push((Name::from(param.name.as_str()), v.clone()));
            }
            locals.insert(Name::from(param.name.as_str()), v);
        }
        if let Some(name) = &func.vararg {
            locals.insert(Name::from(name.as_str()), Value::Unknown);
        }
        if let Some(name) = &func.kwarg {
            // `def setup(**kwargs)` called with `backend="nccl"`: a later `f(**kwargs)` passes it on.
            // Only the constants a library row may read (a backend, a worker count): objects
            // passed along this way cost time in every wrapper and decide nothing.
            let rest: Vec<(String, Value)> = kwargs
                .iter()
                .filter(|(k, v)| {
                    matches!(v, Value::Str(_) | Value::Int(_) | Value::Bool(_))
                        && !func.params.iter().any(|p| p.name == *k)
                })
                .cloned()
                .collect();
            let value = if rest.is_empty() {
                Value::Unknown
            } else {
                Value::Mapping(Arc::new(rest))
            };
            locals.insert(Name::from(name.as_str()), value);
        }
        self.frames.push(Frame {
            func: id,
            locals: Arc::new(locals),
            declared_global: Default::default(),
            captures,
            returns: Value::Unknown,
            called_at: self.pending_call.take(),
            exact,
        });
        caller_module
    }
}

/// What an `if`'s test decided.
enum IfStep<A> {
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
enum IfTest {
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
struct Snapshot<A> {
    locals: Option<Scope>,
    exact: Option<Vec<(Name, Value)>>,
    module: Scope,
    process: Process<A>,
}

/// Joins another path's bindings into `current`; nothing to do when neither path bound anything.
fn join_scope(current: &mut Scope, other: &Scope) {
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

/// The value of an expression built from others (arithmetic, slicing): CUDA in, CUDA out.
fn derived(values: Vec<Value>) -> Value {
    let (mut rank, mut host) = (false, false);
    for v in values {
        match v {
            Value::Cuda(obj) => return Value::cuda(obj.derived()),
            Value::Rank | Value::GlobalRank(_) => rank = true,
            Value::HostTensor { .. } => host = true,
            _ => {}
        }
    }
    if rank {
        Value::Rank
    } else if host {
        // Arithmetic on a host tensor makes a new one, in ordinary memory.
        Value::HostTensor { pinned: None }
    } else {
        Value::Unknown
    }
}

/// `pid == 0`, `not pid`, `pid > 0`, `pid`: which branch runs in the child.
pub(super) fn child_branch_of(ops: &[CmpOp], zero_on_right: bool) -> Option<bool> {
    match ops {
        [CmpOp::Eq] | [CmpOp::Is] => Some(true),
        [CmpOp::NotEq] | [CmpOp::IsNot] => Some(false),
        [CmpOp::Gt] if zero_on_right => Some(false),
        [CmpOp::Lt] if !zero_on_right => Some(false),
        _ => None,
    }
}

/// A value an item assignment changes in place: a list or dict, or one gpulint cannot see into.
pub(super) fn is_container(v: &Value) -> bool {
    matches!(v, Value::Sequence(_) | Value::Mapping(_) | Value::Unknown)
}

/// How the environment keeps a launcher's GPU selection written back (its text unknown).
const LAUNCH_SELECTION: &str = "<launcher's selection>";

/// What writing `value` to `key` does to the GPUs the process sees, if `key` selects them.
fn visibility_write(key: &str, value: &Value) -> Option<VisibilityWrite> {
    if libraries::env_role(key) != Some(EnvRole::NarrowsVisibility) {
        return None;
    }
    Some(match value {
        Value::Str(s) if s.trim().is_empty() => VisibilityWrite::HidesAll,
        Value::LaunchVisibility => VisibilityWrite::Copied,
        _ => VisibilityWrite::Selects,
    })
}

/// Whether the qualified name is the process environment (`Behaviour::Environ`).
fn is_environ(name: &str) -> bool {
    matches!(libraries::lookup(name), Some((Behaviour::Environ, _)))
}

/// `call() is None`, `call() == None` or `not call()`: the body runs only when the call's result
/// is empty (for `get_start_method(allow_none=True)`, when no start method is fixed yet).
fn tests_for_none(test: &Expr) -> bool {
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
