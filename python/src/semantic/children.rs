//! Fork points and the code children run: a forked child inherits the parent's process state and
//! objects; a spawned one starts clean and re-imports the module; a forkserver child forks from a
//! server that imported the main module first.

use std::sync::Arc;

use gpulint_core::analysis::Analysis;
use gpulint_core::effect::{
    ChildKind, ChildStart, CudaInitSite, DefaultContextCall, Effect, EntryCallers, Handed, Init,
    Nodes, OtherLayerStart,
};

use super::calls::Args;
use super::process::{layer_key, Process};
use super::value::{Name, Value};
use super::{Interp, Object, MAX_PROCESS_DEPTH};
use crate::libraries::processes::{
    Layer, ProcessApi, StartMethod, WorkerCall, RUN_METHOD, WORKER_ARGS, WORKER_FUNC, WORKER_ITEMS,
};
use crate::libraries::{self, torch, Behaviour, MethodBehaviour};
use crate::model::{Expr, ExprKind, Stmt};
use crate::source::Span;

/// One call a child makes: the callable and its positional arguments.
pub(super) type Entry = (Value, Vec<Value>);

/// How deep, and through how many values, a child's handed values are searched for what it holds.
const HELD_DEPTH: u32 = 3;
const HELD_VALUES: usize = 64;

/// A loader's workers as first run: their process at its end (before the analyses finished it),
/// and the batch they yield. Iterating the loader again forks them again with the same code.
struct CachedChild<A> {
    process: Process<A>,
    batch: Value,
}

/// What running a child gave: its process at the end, the CUDA state it started with from its
/// parent, and what each entry returned.
pub(super) struct ChildRun<A> {
    process: Option<Process<A>>,
    parent_init: Option<CudaInitSite>,
    pub results: Vec<Value>,
}

/// How a fork point starts its child.
#[derive(Clone, Debug)]
pub(super) struct Start {
    pub method: StartMethod,
    /// What chose the method; `None`: the platform default.
    pub source: Option<Span>,
    /// A `set_start_method` of another layer in force, which this start does not obey.
    pub other_layer: Option<OtherLayerStart>,
    /// What the child does first, before the code it is handed (a data loader's worker limits
    /// the intra-op thread pool; an engine's worker creates its context).
    pub prelude: Vec<Effect>,
    /// The launch this start makes (a launcher that numbers its processes on this machine).
    pub launch: Option<(Span, Nodes)>,
    /// The default was taken in a function run as an entry point, whose caller may set another.
    pub default_in_entry: Option<EntryCallers>,
    /// The call that made the process or pool on its package's default context.
    pub made_by: Option<DefaultContextCall>,
}

impl Start {
    /// A start method the fork point itself names (a launcher's own, a raw fork).
    fn explicit(method: StartMethod, source: Option<Span>) -> Start {
        Start {
            method,
            source,
            other_layer: None,
            prelude: Vec::new(),
            launch: None,
            default_in_entry: None,
            made_by: None,
        }
    }
}

impl<'m, A: Analysis> Interp<'m, A> {
    /// The start method a fork point of `layer` uses: explicit, else its layer's `set_start_method`
    /// so far, else the default (and then another layer's setting, which it ignores, is noted).
    pub(super) fn resolve_start(
        &self,
        layer: Layer,
        explicit: Option<(StartMethod, Span)>,
    ) -> Start {
        if let Some((m, span)) = explicit {
            return Start::explicit(m, Some(span));
        }
        match self.proc_ref().start_methods.get(&layer_key(layer)) {
            Some((m, span)) => Start::explicit(*m, Some(*span)),
            None => Start {
                method: self.settings.default_start_method,
                source: None,
                other_layer: self.other_layer_start(Some(layer)),
                prelude: Vec::new(),
                launch: None,
                default_in_entry: self.proc_ref().entry,
                made_by: None,
            },
        }
    }

    /// A `set_start_method` in force on a layer other than `layer` (`None`: a raw fork, which obeys
    /// none).
    fn other_layer_start(&self, layer: Option<Layer>) -> Option<OtherLayerStart> {
        let set = &self.proc_ref().start_methods;
        Layer::ALL
            .into_iter()
            .filter(|l| Some(*l) != layer)
            .find_map(|l| {
                let (method, span) = set.get(&layer_key(l))?;
                Some(OtherLayerStart {
                    span: *span,
                    method: *method,
                    set_on: l.module().into(),
                    forks_through: layer.map(|f| f.module().into()),
                })
            })
    }

    /// Where the running code creates a child: at module scope or in a function, and whether this
    /// process is a spawned child re-importing the main module.
    fn child_context(&self) -> (bool, bool) {
        (self.frames.is_empty(), self.proc_ref().reimport)
    }

    /// The process a child starts as; for spawn and forkserver, after re-importing the module.
    fn child_process(
        &mut self,
        start: StartMethod,
        parent_init: Option<CudaInitSite>,
    ) -> (Process<A>, Option<CudaInitSite>) {
        let id = self.new_process_id();
        // A child inherits the environment and the default device: what it does depends on them.
        self.context();
        match start {
            StartMethod::Fork => {
                let parent = self.proc_ref();
                let child = Process {
                    id,
                    cuda: parent_init.clone(),
                    start_methods: parent.start_methods.clone(),
                    default_cuda: parent.default_cuda,
                    env: parent.env.clone(),
                    launch: parent.launch,
                    per_worker: true,
                    spawned: parent.spawned,
                    analyses: parent.analyses.forked(),
                    ..Process::default()
                };
                (child, parent_init)
            }
            StartMethod::Spawn | StartMethod::Forkserver => {
                // Before re-importing the main module, the child fixes its default context to the
                // parent's start method (`multiprocessing.spawn.prepare`).
                let fresh = Process {
                    id,
                    per_worker: true,
                    reimport: true,
                    // A new interpreter, but the same environment (`os.environ` is inherited).
                    env: self.proc_ref().env.clone(),
                    launch: self.proc_ref().launch,
                    start_methods: self.proc_ref().start_methods.clone(),
                    analyses: self.proc_ref().analyses.spawned(),
                    ..Process::default()
                };
                self.procs.push(fresh);
                // A new interpreter: every module is imported afresh, the main one first. An
                // interactive main has no file to import: the child has none of it.
                self.world.forget_modules();
                if !self.entry.interactive {
                    self.exec_module(self.main);
                }
                let mut imported = self.procs.pop().unwrap_or_default();
                imported.exited = false;
                imported.reimport = false;
                imported.spawned = true;
                let server_init = imported.cuda.clone();
                (
                    imported,
                    if start == StartMethod::Forkserver {
                        server_init
                    } else {
                        None
                    },
                )
            }
        }
    }

    /// A child whose inherited environment narrows the visible GPUs (the parent wrote
    /// `CUDA_VISIBLE_DEVICES` for it before starting it) initialises CUDA on those GPUs only: its
    /// device is bound from its start.
    fn inherit_visibility(&mut self, span: Span) {
        let narrowed = self.context().env.keys().any(|k| {
            crate::libraries::env_role(k) == Some(crate::libraries::EnvRole::NarrowsVisibility)
        });
        if narrowed && self.proc_ref().bound.is_none() {
            self.proc().bound = Some(span);
            self.emit(Effect::DeviceBound {
                span,
                binding: gpulint_core::effect::Binding::Narrowed,
                chooses: false,
            });
        }
    }

    /// Runs `entries` in a child created at `span`.
    pub(super) fn run_child(
        &mut self,
        span: Span,
        kind: ChildKind,
        mut start: Start,
        parent_init: Option<CudaInitSite>,
        entries: Vec<Entry>,
        code: String,
    ) -> ChildRun<A> {
        let runs = self
            .budget
            .children
            .entry((span, self.proc_ref().id))
            .or_default();
        *runs += 1;
        if self.procs.len() >= MAX_PROCESS_DEPTH || *runs > super::CHILDREN_PER_FORK_POINT {
            return ChildRun {
                process: None,
                parent_init: None,
                results: Vec::new(),
            };
        }
        let (at_module_scope, during_reimport) = self.child_context();
        let world = self.world.save();
        // A child of the main program (or an entry) has a budget of its own; a child's child draws
        // on its parent's.
        let budget = if self.procs.len() == 1 {
            super::CHILD_FUEL
        } else {
            self.budget.fuel.min(super::CHILD_FUEL)
        };
        let fuel = std::mem::replace(&mut self.budget.fuel, budget);
        let budgets = std::mem::replace(&mut self.budget.statement_budgets, false);
        let frames = std::mem::take(&mut self.frames);
        let trail = self.take_trail();
        // A child runs its own code, on whichever rank started it.
        let outer = self.control.take_depths();
        // What a forked child inherits through what it is handed, and frees at its exit.
        let held = match (start.method, kind) {
            (StartMethod::Fork, ChildKind::ProcessStart | ChildKind::DataLoader)
                if parent_init.is_some() =>
            {
                entries.iter().find_map(|(callee, args)| {
                    std::iter::once(callee)
                        .chain(args)
                        .find_map(|v| self.held_inside(v, HELD_DEPTH, true, &mut 0))
                })
            }
            _ => None,
        };
        let prelude = std::mem::take(&mut start.prelude);
        let (mut child, parent_init) = self.child_process(start.method, parent_init);
        child.child_of = Some(span);
        self.procs.push(child);
        self.emit(Effect::ChildStarted(ChildStart {
            span,
            kind,
            start_method: start.method,
            start_method_source: start.source,
            parent_init: parent_init.clone(),
            code: Some(code.into()),
            at_module_scope,
            during_reimport,
            other_layer_start: start.other_layer,
            default_in_entry: start.default_in_entry,
            made_by: start.made_by,
        }));
        // The child runs its target, not the main module's top level.
        let main_statement = self.main_statement.take();
        if start.method != StartMethod::Fork || parent_init.is_none() {
            self.inherit_visibility(span);
        }
        for effect in prelude {
            self.emit(effect);
        }
        self.child_launch(span, start.launch, &entries);
        if let Some((site, what)) = held {
            self.emit(Effect::CudaHeld {
                span: site,
                what: format!(
                    "the child holds {what} from its parent and frees it when it exits \
                     (since torch 2.11 that aborts a forked child)"
                )
                .into(),
            });
        }
        let mut entries = entries;
        if self.entry.interactive && start.method != StartMethod::Fork {
            // Unpickling runs while the child bootstraps, as a re-import of the main would.
            self.proc().reimport = true;
            self.import_definitions(&entries);
            self.proc().reimport = false;
            // What the notebook defines cannot be unpickled (GPU006): that child never runs it,
            // and no one else calls it as its entry point.
            let mut skipped = Vec::new();
            entries.retain(|(callee, args)| {
                let mut files = Vec::new();
                for value in std::iter::once(callee).chain(args) {
                    self.defining_files(value, 0, &mut files);
                }
                let runs = !files.contains(&self.main);
                if !runs {
                    if let Value::Function(id, _) | Value::BoundMethod(id, _) = callee.primary() {
                        skipped.push(*id);
                    }
                }
                runs
            });
            self.entered.extend(skipped);
        }
        let mut results = Vec::new();
        let run_time = std::mem::replace(&mut self.control.run_time, true);
        for (callee, args) in entries {
            let code = self.describe(&callee);
            self.emit(Effect::ChildRuns { code: code.into() });
            results.push(self.call_plain(&callee, args));
        }
        self.control.run_time = run_time;
        let child = self.procs.pop().unwrap_or_default();
        self.finish_process(child.clone());
        self.world.restore(world);
        self.frames = frames;
        self.main_statement = main_statement;
        self.put_trail(trail);
        self.control.put_depths(outer);
        self.budget.fuel = fuel;
        self.budget.statement_budgets = budgets;
        ChildRun {
            process: Some(child),
            parent_init,
            results,
        }
    }

    /// What unpickling the entries imports in a child that did not import the main module (that
    /// of an interactive main): the modules that define them.
    fn import_definitions(&mut self, entries: &[Entry]) {
        let mut files = Vec::new();
        for (callee, args) in entries {
            for value in std::iter::once(callee).chain(args) {
                self.defining_files(value, 0, &mut files);
            }
        }
        files.sort();
        files.dedup();
        files.retain(|f| *f != self.main);
        for file in files {
            self.import_file(file);
        }
    }

    /// The program's modules that define `value` (a function, a class, an instance, a partial).
    fn defining_files(&self, value: &Value, depth: u32, out: &mut Vec<crate::source::FileId>) {
        if depth > 3 {
            return;
        }
        match value {
            Value::Function(id, _) | Value::BoundMethod(id, _) => out.push(id.file),
            Value::Class(id) => out.push(id.file),
            Value::OneOf(items) => {
                for v in items {
                    self.defining_files(v, depth + 1, out);
                }
            }
            Value::Object(_) => match self.object(value) {
                Some(Object::Instance { class, .. }) => out.push(class.file),
                Some(Object::Partial { func, args }) => {
                    for v in std::iter::once(func).chain(args) {
                        self.defining_files(v, depth + 1, out);
                    }
                }
                _ => {}
            },
            _ => {}
        }
    }

    /// A `with daemon.DaemonContext():` body or the child branch after `os.fork()`, run as a forked child.
    pub(super) fn run_forked_block(&mut self, fork_span: Span, kind: ChildKind, body: &'m [Stmt]) {
        if self.procs.len() >= MAX_PROCESS_DEPTH {
            return;
        }
        let parent_init = self.proc_ref().cuda.clone();
        let (at_module_scope, during_reimport) = self.child_context();
        let other_layer_start = self.other_layer_start(None);
        let (mut child, parent_init) = self.child_process(StartMethod::Fork, parent_init);
        child.child_of = Some(fork_span);
        let world = self.world.save();
        let locals = self.frames.last().map(|f| f.locals.clone());
        self.procs.push(child);
        self.emit(Effect::ChildStarted(ChildStart {
            span: fork_span,
            kind,
            start_method: StartMethod::Fork,
            start_method_source: Some(fork_span),
            parent_init,
            code: Some("the child branch".into()),
            at_module_scope,
            during_reimport,
            other_layer_start,
            default_in_entry: None,
            made_by: None,
        }));
        self.exec_block(body);
        let child = self.procs.pop().unwrap_or_default();
        self.finish_process(child);
        self.world.restore(world);
        if let (Some(frame), Some(locals)) = (self.frames.last_mut(), locals) {
            frame.locals = locals;
        }
    }

    /// `if os.fork(): sys.exit()`: the rest of this process is the forked child.
    pub(super) fn become_forked_child(&mut self, fork_span: Span) {
        let parent_init = self.proc_ref().cuda.clone();
        let (at_module_scope, during_reimport) = self.child_context();
        let other_layer_start = self.other_layer_start(None);
        let id = self.new_process_id();
        let process = self.proc();
        process.id = id;
        process.child_of = Some(fork_span);
        process.per_worker = true;
        process.analyses = process.analyses.forked();
        self.emit(Effect::ChildStarted(ChildStart {
            span: fork_span,
            kind: ChildKind::OsFork,
            start_method: StartMethod::Fork,
            start_method_source: Some(fork_span),
            parent_init,
            code: Some("the code after the parent exits".into()),
            at_module_scope,
            during_reimport,
            other_layer_start,
            default_in_entry: None,
            made_by: None,
        }));
    }

    /// The `os.fork()` a branch test looks at, and whether the `if` body is the child's branch.
    pub(super) fn fork_test(&self, test: &Expr, tested: &Value) -> Option<(Span, bool)> {
        let fork_of = |e: &Expr| -> Option<Span> {
            match &e.kind {
                ExprKind::Name(n) => match self.object(&self.lookup(n)?) {
                    Some(Object::ForkResult { span }) => Some(*span),
                    _ => None,
                },
                // `os.fork()` written in the test itself.
                ExprKind::Call { .. } => self.fork_calls.contains(&e.span).then_some(e.span),
                _ => None,
            }
        };
        if let Some(Object::ForkResult { span }) = self.object(tested) {
            return Some((*span, false));
        }
        match &test.kind {
            ExprKind::Not(inner) => fork_of(inner).map(|s| (s, true)),
            ExprKind::Compare {
                left,
                ops,
                comparators,
            } if comparators.len() == 1 => {
                let zero = |e: &Expr| matches!(e.kind, ExprKind::Int(0));
                if zero(&comparators[0]) {
                    let span = fork_of(left)?;
                    super::interp::child_branch_of(ops, true).map(|c| (span, c))
                } else if zero(left) {
                    let span = fork_of(&comparators[0])?;
                    super::interp::child_branch_of(ops, false).map(|c| (span, c))
                } else {
                    None
                }
            }
            _ => None,
        }
    }

    /// `with daemon.DaemonContext():`.
    pub(super) fn daemon_context(&self, expr: &Expr, value: &Value) -> Option<Span> {
        match value {
            Value::Qualified(q) => match libraries::lookup(q)?.0 {
                Behaviour::StartsChildren {
                    api: ProcessApi::DaemonContext,
                    ..
                } => Some(expr.span),
                _ => None,
            },
            _ => None,
        }
    }

    /// `.start()` on a process object, or on an instance of a process subclass (which runs `run`).
    pub(super) fn start_process(&mut self, span: Span, recv: &Value) -> Option<Value> {
        let Value::Object(id) = recv.primary() else {
            return None;
        };
        let (entry, start, code) = match self.world.object(*id)?.clone() {
            Object::Process {
                target,
                target_span,
                args,
                start,
                layer,
                made_by,
            } => {
                let code = self.describe(&target);
                let start = Start {
                    made_by,
                    ..self.resolve_start(layer, start)
                };
                if let Some(at) = target_span {
                    self.hand_over(
                        &[(target.clone(), at, Handed::Target)],
                        layer,
                        (start.method, start.source),
                    );
                }
                ((target, args), start, code)
            }
            Object::Instance { class, .. } => {
                let (layer, explicit) = self.process_base(class)?;
                let run = self.find_method(class, RUN_METHOD)?;
                let start = self.resolve_start(layer, explicit.map(|m| (m, span)));
                self.hand_over(
                    &[(recv.clone(), span, Handed::ProcessObject)],
                    layer,
                    (start.method, start.source),
                );
                let code = format!("`{}.{RUN_METHOD}`", self.class(class).name);
                let entry = (Value::bound_method(run, recv.clone()), Vec::new());
                (entry, start, code)
            }
            _ => return None,
        };
        let parent = self.proc_ref().cuda.clone();
        self.run_child(
            span,
            ChildKind::ProcessStart,
            start,
            parent,
            vec![entry],
            code,
        );
        Some(Value::None)
    }

    /// A pool or executor method that runs a function in the workers.
    pub(super) fn run_in_workers(
        &mut self,
        recv: &Value,
        call: WorkerCall,
        args: &Args<'m>,
    ) -> Option<Value> {
        let Value::Object(id) = recv.primary() else {
            return None;
        };
        let id = *id;
        let (func, values, func_span) = self.pool_call(call, args);
        let code = self.describe(&func);
        let task = func_span.map(|at| [(func.clone(), at, Handed::Task)]);
        match self.world.object(id)?.clone() {
            Object::Pool {
                span: pool_span,
                start,
                layer,
                made_by,
                forked_with,
                refork,
                initializer,
            } => {
                let start = Start {
                    made_by,
                    ..self.resolve_start(layer, start)
                };
                if let Some(task) = &task {
                    self.hand_over(task, layer, (start.method, start.source));
                }
                let parent = if refork {
                    self.proc_ref().cuda.clone()
                } else {
                    forked_with
                };
                // Each worker ran the initializer before it takes tasks.
                let entries: Vec<Entry> = initializer.into_iter().chain([(func, values)]).collect();
                let run = self.run_child(pool_span, ChildKind::Pool, start, parent, entries, code);
                Some(
                    run.results
                        .into_iter()
                        .last()
                        .map_or(Value::Unknown, |r| Value::seq(vec![r])),
                )
            }
            Object::Executor {
                span: ex_span,
                start,
                made_by,
                started_with,
                initializer,
            } => {
                let parent = match started_with {
                    Some(parent) => parent,
                    None => {
                        let now = self.proc_ref().cuda.clone();
                        if let Some(Object::Executor { started_with, .. }) = self.object_mut(id) {
                            *started_with = Some(now.clone());
                        }
                        now
                    }
                };
                let start = Start {
                    made_by,
                    ..self.resolve_start(Layer::Multiprocessing, start)
                };
                if let Some(task) = &task {
                    self.hand_over(task, Layer::Multiprocessing, (start.method, start.source));
                }
                // Each worker ran the initializer before it takes tasks.
                let entries: Vec<Entry> = initializer.into_iter().chain([(func, values)]).collect();
                self.run_child(ex_span, ChildKind::Executor, start, parent, entries, code);
                Some(Value::Unknown)
            }
            _ => None,
        }
    }

    /// The function a pool method runs, the arguments one call of it gets, and where the
    /// function is given.
    fn pool_call(&self, call: WorkerCall, args: &Args<'m>) -> (Value, Vec<Value>, Option<Span>) {
        let given = WORKER_FUNC.iter().find_map(|p| args.param(*p));
        let func_span = given.map(|(_, e)| e.span);
        let func = given.map(|(v, _)| v.clone()).unwrap_or_default();
        let values = match call {
            WorkerCall::Submit => args.pos.iter().skip(1).map(|(v, _)| v.clone()).collect(),
            WorkerCall::Apply => match args.param(WORKER_ARGS) {
                Some((Value::Sequence(items), _)) => items.to_vec(),
                _ => Vec::new(),
            },
            WorkerCall::Starmap => match args.param(WORKER_ITEMS) {
                Some((Value::Sequence(items), _)) => match items.first() {
                    Some(Value::Sequence(first)) => first.to_vec(),
                    _ => Vec::new(),
                },
                _ => Vec::new(),
            },
            WorkerCall::Map => match args.param(WORKER_ITEMS) {
                Some((Value::Sequence(items), _)) => {
                    vec![items.iter().cloned().fold(Value::Unknown, Value::join)]
                }
                _ => vec![Value::Unknown],
            },
        };
        (func, values, func_span)
    }

    /// `Pool(...)`: the workers fork now; an `initializer` runs in each.
    pub(super) fn pool(
        &mut self,
        span: Span,
        layer: Layer,
        api: ProcessApi,
        args: &Args<'m>,
        context: Option<(StartMethod, Span)>,
    ) -> Value {
        let ProcessApi::Pool {
            initializer,
            initargs,
            max_tasks,
        } = api
        else {
            return Value::Unknown;
        };
        let made_by = self.made_by(span, layer, args, context);
        let start = Start {
            made_by: made_by.clone(),
            ..self.resolve_start(layer, context)
        };
        let parent = self.proc_ref().cuda.clone();
        let refork = matches!(args.param(max_tasks), Some((v, _)) if !matches!(v, Value::None));
        let given = args.param(initializer);
        if let Some((f, e)) = given {
            self.hand_over(
                &[(f.clone(), e.span, Handed::Initializer)],
                layer,
                (start.method, start.source),
            );
        }
        let initializer = given.map(|(v, _)| v.clone());
        let initargs = match args.param(initargs) {
            Some((Value::Sequence(items), _)) => items.to_vec(),
            _ => Vec::new(),
        };
        let entries = initializer.map(|f| vec![(f, initargs)]).unwrap_or_default();
        let initializer = entries.first().cloned();
        let code = entries
            .first()
            .map_or_else(|| "its tasks".to_string(), |(f, _)| self.describe(f));
        let forkserver = start.method == StartMethod::Forkserver;
        let run = self.run_child(span, ChildKind::Pool, start, parent.clone(), entries, code);
        let forked_with = if forkserver { run.parent_init } else { parent };
        self.alloc(Object::Pool {
            span,
            start: context,
            layer,
            made_by,
            forked_with,
            refork,
            initializer,
        })
    }

    /// `torch.multiprocessing.spawn(fn, args, nprocs)` / `start_processes(..., start_method=...)`.
    pub(super) fn start_processes(&mut self, span: Span, api: ProcessApi, args: &Args<'m>) {
        let ProcessApi::Spawns {
            func,
            args: params,
            start_method,
            one_node,
        } = api
        else {
            return;
        };
        let given = args.param(func);
        let func_span = given.map(|(_, e)| e.span);
        let func = given.map(|(v, _)| v.clone()).unwrap_or_default();
        let mut values = vec![Value::Rank];
        if let Some((Value::Sequence(items), _)) = args.param(params) {
            values.extend(items.iter().cloned());
        }
        let start = match start_method {
            None => Start::explicit(StartMethod::Spawn, Some(span)),
            Some(param) => match args.param(param) {
                Some((Value::Str(s), e)) => Start::explicit(
                    StartMethod::parse(s).unwrap_or(StartMethod::Spawn),
                    Some(e.span),
                ),
                _ => Start::explicit(StartMethod::Spawn, None),
            },
        };
        if let Some(at) = func_span {
            self.hand_over(
                &[(func.clone(), at, Handed::Target)],
                Layer::Multiprocessing,
                (start.method, start.source),
            );
        }
        let code = self.describe(&func);
        let mut start = start;
        if one_node {
            start.launch = Some((span, Nodes::One));
        }
        self.run_child(
            span,
            ChildKind::StartProcesses,
            start,
            self.proc_ref().cuda.clone(),
            vec![(func, values)],
            code,
        );
    }

    /// `ds.map(fn, num_proc=N)` on a Hugging Face dataset: forks through `multiprocess`.
    pub(super) fn dataset_map(
        &mut self,
        span: Span,
        recv: &Value,
        does: MethodBehaviour,
        args: &Args<'m>,
    ) -> Value {
        let MethodBehaviour::MapsDataset {
            function,
            num_proc,
            with_rank,
        } = does
        else {
            return Value::Unknown;
        };
        let func = args
            .param(function)
            .map(|(v, _)| v.clone())
            .unwrap_or_default();
        let forks = match args.param(num_proc) {
            None | Some((Value::None, _)) => false,
            Some((Value::Int(n), _)) => *n > 1,
            Some(_) => true,
        };
        let with_rank = matches!(args.param(with_rank), Some((Value::Bool(true), _)));
        let values = if with_rank {
            vec![Value::Unknown, Value::Rank]
        } else {
            vec![Value::Unknown]
        };
        if forks {
            let start = self.resolve_start(Layer::Multiprocess, None);
            let code = self.describe(&func);
            self.run_child(
                span,
                ChildKind::DatasetMap,
                start,
                self.proc_ref().cuda.clone(),
                vec![(func, values)],
                code,
            );
        } else if matches!(self.object(recv), Some(Object::ForkingDataset)) {
            self.call_plain(&func, values);
        }
        self.alloc(Object::ForkingDataset)
    }

    /// The tasks the main module registered with a task worker, each run in a child forked from
    /// the process as the module's import left it.
    pub(super) fn run_forked_tasks(&mut self) {
        let tasks = std::mem::take(&mut self.entry.forked_tasks);
        for (id, span, kind) in tasks.into_iter().take(super::MAX_FORKED_TASKS) {
            let parent = self.proc_ref().cuda.clone();
            let task = Value::Function(id, None);
            let code = self.describe(&task);
            // A fork of its own, which obeys no `set_start_method`.
            let start = Start {
                other_layer: self.other_layer_start(None),
                ..Start::explicit(StartMethod::Fork, None)
            };
            self.run_child(span, kind, start, parent, vec![(task, Vec::new())], code);
        }
    }

    /// The main module as a server's configuration: its master-side hooks run in this process,
    /// and if one initialised CUDA the workers are forked from it. What the workers run is the
    /// application, not in this module: that they use the GPU state the hook prepared is taken
    /// from the hook itself, which initialised CUDA for them.
    pub(super) fn run_server_hooks(&mut self) {
        let Some(module) = self.module(self.main) else {
            return;
        };
        let name = self.p.file(self.main).path.file_name();
        let Some(hooks) = crate::libraries::processes::SERVER_HOOKS
            .iter()
            .find(|h| name.is_some_and(|n| h.files.iter().any(|f| n == *f)))
        else {
            return;
        };
        for (index, func) in module.functions.iter().enumerate() {
            if func.parent.is_some()
                || func.class.is_some()
                || !hooks.master_hooks.contains(&func.name.as_str())
            {
                continue;
            }
            let id = crate::model::FuncId {
                file: self.main,
                index: index as u32,
            };
            let before = self.proc_ref().cuda.is_some();
            self.call_function(id, None, None, vec![Value::Unknown], Vec::new());
            self.entered.insert(id);
            let parent = self.proc_ref().cuda.clone();
            if before || parent.is_none() {
                continue;
            }
            let start = Start {
                prelude: vec![Effect::CudaInit {
                    site: CudaInitSite {
                        span: func.name_span,
                        level: Init::Context,
                        what: format!("each worker uses what `{}` prepared on the GPU", func.name)
                            .into(),
                    },
                    fails_in_child: true,
                }],
                ..Start::explicit(StartMethod::Fork, None)
            };
            let code = "each worker".to_string();
            self.run_child(
                func.name_span,
                ChildKind::ServerHook,
                start,
                parent,
                Vec::new(),
                code,
            );
        }
    }

    /// An engine's worker processes, one per GPU, when it runs on several, or its own process
    /// where the version runs it in one (`Behaviour::ParallelEngine`). Whether the engine runs in
    /// a child: an unknown version says so, which reports less in the caller.
    pub(super) fn engine_workers(&mut self, span: Span, does: Behaviour, args: &Args<'m>) -> bool {
        let Behaviour::ParallelEngine {
            parallel,
            method_env,
            package,
            spawns_since,
            in_child_since,
            in_process_env: (key, in_process),
            in_process_arg: (arg, in_process_value),
        } = does
        else {
            return false;
        };
        if matches!(args.param(arg), Some((Value::Str(v), _)) if &**v == in_process_value) {
            return false;
        }
        let several = parallel
            .iter()
            .any(|p| matches!(args.param(*p), Some((Value::Int(n), _)) if *n > 1));
        let in_child = self.env_var(key).map(String::as_str) != Some(in_process)
            && self.settings.requirements.at_least(package, in_child_since) != Some(false);
        if !several && !in_child {
            return false;
        }
        let parent = self.proc_ref().cuda.clone();
        let from_env = self.env_var(method_env);
        let method = match from_env.and_then(|m| StartMethod::parse(m)) {
            Some(m) => m,
            None => match self.settings.requirements.at_least(package, spawns_since) {
                Some(false) => StartMethod::Fork,
                _ if parent.is_some() => StartMethod::Spawn,
                _ => StartMethod::Fork,
            },
        };
        // Its own fork obeys no `set_start_method`, only the environment variable.
        let other_layer = match method {
            StartMethod::Fork => self.other_layer_start(None).map(|o| OtherLayerStart {
                forks_through: Some(package.into()),
                ..o
            }),
            _ => None,
        };
        let start = Start {
            other_layer,
            prelude: vec![Effect::CudaInit {
                site: CudaInitSite {
                    span,
                    level: Init::Context,
                    what: "each worker creates a CUDA context on its GPU".into(),
                },
                fails_in_child: true,
            }],
            ..Start::explicit(method, None)
        };
        let code = match several {
            true => "each engine worker",
            false => "the engine's process",
        };
        self.run_child(
            span,
            ChildKind::EngineWorkers,
            start,
            parent,
            Vec::new(),
            code.to_string(),
        );
        in_child
    }

    /// `DataLoader(...)`: workers fork at each iteration; checked now if CUDA is already initialised
    /// (the state only moves forward), and again wherever it is iterated.
    pub(super) fn dataloader(&mut self, span: Span, does: Behaviour, args: &Args<'m>) -> Value {
        let Behaviour::Loader {
            dataset,
            num_workers,
            collate_fn,
            worker_init_fn,
            context,
            one_thread,
        } = does
        else {
            return Value::Unknown;
        };
        let value = |a: Option<(&Value, &Expr)>| a.map(|(v, _)| v.clone()).unwrap_or_default();
        let workers = match args.param(num_workers) {
            None | Some((Value::Int(0), _)) | Some((Value::None, _)) => false,
            Some((Value::Int(n), _)) => *n > 0,
            Some(_) => true,
        };
        let start = args.param(context).and_then(|(v, e)| match v {
            Value::Str(s) => StartMethod::parse(s).map(|m| (m, e.span)),
            Value::Context(_, m) => Some((*m, e.span)),
            _ => None,
        });
        let handed: Vec<(Value, Span, Handed)> = [
            (dataset, Handed::Dataset),
            (collate_fn, Handed::CollateFn),
            (worker_init_fn, Handed::WorkerInitFn),
        ]
        .into_iter()
        .filter_map(|(p, h)| args.param(p).map(|(v, e)| (v.clone(), e.span, h)))
        .collect();
        if workers {
            let resolved = self.resolve_start(Layer::Multiprocessing, start);
            self.hand_over(
                &handed,
                Layer::Multiprocessing,
                (resolved.method, resolved.source),
            );
        }
        let loader = self.alloc(Object::Loader {
            span,
            dataset: value(args.param(dataset)),
            collate: value(args.param(collate_fn)),
            worker_init: value(args.param(worker_init_fn)),
            workers,
            start,
            handed,
            one_thread,
            child: None,
        });
        if workers && self.proc_ref().cuda.is_some() {
            if let Value::Object(id) = loader {
                self.loader_workers(id);
            }
        }
        loader
    }

    /// One `iter()` of a loader: its workers start (or, without workers, the dataset runs here).
    pub(super) fn iterate_loader(&mut self, id: super::value::ObjId, span: Span) -> Value {
        let Some(Object::Loader {
            workers,
            dataset,
            collate,
            ..
        }) = self.world.object(id).cloned()
        else {
            return Value::Unknown;
        };
        if !workers {
            let entries = self.dataset_entries(&dataset, &collate);
            let mut batch = Value::Unknown;
            for (f, a) in entries {
                batch = self.call_plain(&f, a);
            }
            return batch;
        }
        let batch = self.loader_workers(id);
        if let Value::Cuda(_) = batch {
            self.cuda_event(
                span,
                Init::Context,
                "receiving CUDA tensors from the DataLoader's workers creates a context".into(),
                true,
            );
        }
        batch
    }

    /// Forks a loader's workers with the parent as it is now; returns the batch they yield.
    fn loader_workers(&mut self, id: super::value::ObjId) -> Value {
        let Some(Object::Loader {
            span,
            dataset,
            collate,
            worker_init,
            start,
            handed,
            one_thread,
            child,
            ..
        }) = self.world.object(id).cloned()
        else {
            return Value::Unknown;
        };
        let start = Start {
            prelude: match one_thread {
                true => vec![Effect::HostThreadsLimited { span }],
                false => Vec::new(),
            },
            ..self.resolve_start(Layer::Multiprocessing, start)
        };
        if child.is_none() {
            self.hand_over(
                &handed,
                Layer::Multiprocessing,
                (start.method, start.source),
            );
        }
        let parent = self.proc_ref().cuda.clone();
        if let Some(cached) = child
            .as_ref()
            .and_then(|c| c.downcast_ref::<CachedChild<A>>())
        {
            // The same workers forked again, from the parent as it is now: a new start, and what
            // the workers did the first time.
            let mut process = cached.process.clone();
            let mut again = gpulint_core::analysis::Shared::<A>::default();
            again.effect(
                &Effect::ChildStarted(ChildStart {
                    span,
                    kind: ChildKind::DataLoader,
                    start_method: start.method,
                    start_method_source: start.source,
                    parent_init: (start.method == StartMethod::Fork)
                        .then_some(parent)
                        .flatten(),
                    code: None,
                    at_module_scope: self.frames.is_empty(),
                    during_reimport: self.proc_ref().reimport,
                    other_layer_start: start.other_layer,
                    default_in_entry: start.default_in_entry,
                    made_by: None,
                }),
                &Default::default(),
                &mut self.facts,
            );
            again.join(cached.process.analyses.clone());
            process.analyses = again;
            let batch = cached.batch.clone();
            self.finish_process(process);
            return batch;
        }
        let mut entries = self.dataset_entries(&dataset, &collate);
        if !matches!(worker_init, Value::Unknown | Value::None) {
            entries.insert(0, (worker_init.clone(), vec![Value::Rank]));
        }
        let code = entries
            .iter()
            .map(|(f, _)| self.describe(f))
            .collect::<Vec<_>>()
            .join(", ");
        let has_collate = !matches!(collate, Value::Unknown | Value::None);
        let run = self.run_child(span, ChildKind::DataLoader, start, parent, entries, code);
        let batch = if has_collate {
            run.results.last().cloned()
        } else {
            run.results.first().cloned()
        };
        let batch = batch.unwrap_or_default();
        if let (Some(process), Some(Object::Loader { child, .. })) =
            (run.process, self.object_mut(id))
        {
            *child = Some(Arc::new(CachedChild {
                process,
                batch: batch.clone(),
            }));
        }
        batch
    }

    /// What a loader worker runs: the dataset's item access (or its transforms), then the collate.
    fn dataset_entries(&self, dataset: &Value, collate: &Value) -> Vec<Entry> {
        let mut entries = Vec::new();
        match self.object(dataset) {
            Some(Object::Instance { class, .. }) => {
                let method = torch::DATASET_ITEM_METHODS
                    .iter()
                    .find_map(|m| self.find_method(*class, m));
                if let Some(f) = method {
                    entries.push((
                        Value::bound_method(f, dataset.clone()),
                        vec![Value::Unknown],
                    ));
                }
            }
            Some(Object::LibraryDataset { transforms }) => {
                entries.extend(transforms.iter().map(|t| (t.clone(), vec![Value::Unknown])));
            }
            Some(Object::ArgumentsDataset { .. }) => {
                entries.push((dataset.clone(), vec![Value::Unknown]));
            }
            _ => {}
        }
        if !matches!(collate, Value::Unknown | Value::None) {
            entries.push((collate.clone(), vec![Value::Unknown]));
        }
        entries
    }

    /// Pinned host memory that `value` is or holds (in its items, attributes, a closure's
    /// variables, a partial's arguments), or a CUDA object it is or holds in its items, `depth`
    /// levels down, looking at `seen` values at most: where it was made, and what it is. CUDA
    /// objects are not looked for inside objects and closures: the values that reach an object's
    /// attributes include every result of a call gpulint does not model that took a CUDA argument,
    /// which a child does not hold (a trainer's collator holds the trainer, whose attributes look
    /// CUDA); pinned memory only comes from an explicit `pin_memory`.
    fn held_inside(
        &self,
        value: &Value,
        depth: u32,
        cuda: bool,
        seen: &mut usize,
    ) -> Option<(Span, String)> {
        *seen += 1;
        if *seen > HELD_VALUES {
            return None;
        }
        let inner = |v: &Value, cuda: bool, seen: &mut usize| {
            if depth == 0 {
                None
            } else {
                self.held_inside(v, depth - 1, cuda, seen)
            }
        };
        match value {
            Value::Cuda(obj) if cuda => Some((obj.site, "a CUDA tensor or module".into())),
            Value::HostTensor { pinned: Some(site) } => Some((*site, "pinned host memory".into())),
            Value::Sequence(items) => items.iter().find_map(|v| inner(v, cuda, seen)),
            Value::OneOf(items) => items.iter().find_map(|v| inner(v, cuda, seen)),
            Value::Mapping(entries) => entries.iter().find_map(|(_, v)| inner(v, cuda, seen)),
            Value::BoundMethod(_, receiver) => inner(receiver, false, seen),
            Value::Function(_, Some(captures)) => {
                let mut names: Vec<&Name> = captures.keys().collect();
                names.sort();
                names.into_iter().find_map(|n| {
                    let (site, what) = inner(&captures[n.as_str()], false, seen)?;
                    Some((site, format!("{what} (through `{n}`)")))
                })
            }
            Value::Object(_) => match self.object(value)? {
                Object::Instance { attrs, .. } => {
                    let mut names: Vec<&Name> = attrs.keys().collect();
                    names.sort();
                    names.into_iter().find_map(|n| {
                        let (site, what) = inner(&attrs[n.as_str()], false, seen)?;
                        Some((site, format!("{what} (in `.{n}`)")))
                    })
                }
                Object::Partial { func, args } => std::iter::once(func)
                    .chain(args)
                    .find_map(|v| inner(v, false, seen)),
                Object::Compose(items) | Object::LibraryDataset { transforms: items } => {
                    items.iter().find_map(|v| inner(v, false, seen))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// How messages name the code a child runs.
    pub(super) fn describe(&self, callee: &Value) -> String {
        match callee {
            Value::Function(id, _) | Value::BoundMethod(id, _) => {
                let f = self.func(*id);
                match (f.name.as_str(), f.class) {
                    ("<lambda>", _) => "a lambda".into(),
                    (name, Some(c)) => format!("`{}.{name}`", self.class(c).name),
                    (name, None) => format!("`{name}`"),
                }
            }
            Value::Object(_) => match self.object(callee) {
                Some(Object::Partial { func, .. }) => self.describe(func),
                Some(Object::Compose(_)) => "its transforms".into(),
                Some(Object::ArgumentsDataset { name, .. }) => format!("`{name}.__getitem__`"),
                Some(Object::Instance { class, .. }) => {
                    format!("`{}.__call__`", self.class(*class).name)
                }
                _ => "the child's code".into(),
            },
            _ => "the child's code".into(),
        }
    }
}
