//! Statements and expressions: program order, scopes, branches, loops, assignments and name lookup.

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

use gpulint_core::analysis::Analysis;
use gpulint_core::effect::{CudaInitSite, CudaObject, DeviceIndex, Effect, Init};

use super::value::{Name, Value};
use super::{Frame, Interp, MAX_CALL_DEPTH};
use crate::libraries::{self};
use crate::model::{CmpOp, Expr, ExprKind, FuncId, Stmt, StmtKind};
use crate::source::Span;

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

    pub(super) fn exec(&mut self, stmt: &'m Stmt) -> Flow {
        self.budget.spend();
        match &stmt.kind {
            StmtKind::Import(names) => self.exec_import(names, stmt.span),
            StmtKind::ImportFrom {
                module,
                level,
                names,
            } => self.exec_import_from(module.as_deref(), *level, names, stmt.span),
            StmtKind::Def(id) => self.exec_def(*id, stmt.span),
            StmtKind::Class(id) => self.exec_class(*id, stmt.span),
            StmtKind::Assign { targets, value } => {
                let v = self.eval(value);
                self.assigned_from = Some(value);
                for t in targets {
                    self.assign(t, v.clone(), stmt.span);
                }
                self.assigned_from = None;
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
            } => return self.exec_try(body, handlers, orelse, finally),
            StmtKind::Match { subject, cases } => {
                self.eval(subject);
                for case in cases {
                    self.exec_maybe(case);
                }
            }
            StmtKind::Return(value) => return self.exec_return(value.as_ref()),
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
    pub(super) fn register_task(&mut self, id: FuncId, decorators: &'m [Expr]) {
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
                    &crate::libraries::processes::launchers::TASK_WORKER
                }
                Some((libraries::Behaviour::HandlesRequests, _)) => {
                    match self.settings.preloading_server {
                        Some(server) => server,
                        None => continue,
                    }
                }
                _ => continue,
            };
            self.entry.forked_tasks.push((id, d.span, kind));
            return;
        }
    }

    /// Decorator arguments run when the definition does (`@skipIf(not torch.cuda.is_available())`).
    pub(super) fn eval_decorators(&mut self, decorators: &'m [Expr]) {
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

    pub(super) fn import_effect(&mut self, module: &str, span: Span) {
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
        let package = row.module.split('.').next().unwrap_or(row.module);
        let in_release = row.init_in.is_none_or(|(since, before)| {
            self.settings.requirements.within(package, since, before)
        });
        let turned_off = row
            .init_unless_env
            .is_some_and(|(key, value)| self.env_var(key).is_some_and(|v| v == value));
        if in_release && !turned_off {
            self.cuda_event(span, row.init, what, true);
        }
        let older = row.sets_env_since.is_some_and(|since| {
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
    pub(super) fn cuda_event_at(&mut self, site: CudaInitSite, fails_in_child: bool) {
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
        // Made on the device of an object not known here (`x.device`): that may be the CPU, so
        // the use is not known to touch CUDA.
        if obj.index == DeviceIndex::Inherited {
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
        // On the device of an object not known here (`x.device`), which may be the CPU: the
        // process's CUDA state is not known to move (as `use_cuda_object` says of its reads).
        if index != DeviceIndex::Inherited {
            self.cuda_event(span, Init::Context, what.clone(), true);
        }
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
    pub(super) fn cut(&mut self, id: FuncId, reason: &'static str, repeat: bool) {
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
