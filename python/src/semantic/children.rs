//! Fork points and the code children run: a forked child inherits the parent's process state and
//! objects; a spawned one starts clean and re-imports the module; a forkserver child forks from a
//! server that imported the main module first.

use gpulint_core::analysis::Analysis;
use gpulint_core::effect::{
    ChildStart, CudaInitSite, DefaultContextCall, Effect, EntryCallers, Init, Launcher, Nodes,
    OtherLayerStart,
};

use super::process::{layer_key, Process};
use super::value::{Name, Value};
use super::{Interp, Object, MAX_PROCESS_DEPTH};
use crate::libraries::processes::{launchers, Layer, ProcessApi, StartMethod};
use crate::libraries::{self, Behaviour};
use crate::model::{Expr, ExprKind, Stmt};
use crate::source::Span;

/// One call a child makes: the callable and its positional arguments.
pub(super) type Entry = (Value, Vec<Value>);

/// How deep, and through how many values, a child's handed values are searched for what it holds.
pub(super) const HELD_DEPTH: u32 = 3;
pub(super) const HELD_VALUES: usize = 64;

/// What running a child gave: its process at the end, the CUDA state it started with from its
/// parent, and what each entry returned.
pub(super) struct ChildRun<A> {
    pub process: Option<Process<A>>,
    pub parent_init: Option<CudaInitSite>,
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
    pub(super) fn explicit(method: StartMethod, source: Option<Span>) -> Start {
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

    /// A start by a fork of the launcher's own, which obeys no `set_start_method` (one in force is
    /// noted for GPU012).
    pub(super) fn own_fork(&self) -> Start {
        Start {
            other_layer: self.other_layer_start(None),
            ..Start::explicit(StartMethod::Fork, None)
        }
    }

    /// A `set_start_method` in force on a layer other than `layer` (`None`: a raw fork, which obeys
    /// none).
    pub(super) fn other_layer_start(&self, layer: Option<Layer>) -> Option<OtherLayerStart> {
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
    pub(super) fn child_context(&self) -> (bool, bool) {
        (self.frames.is_empty(), self.proc_ref().reimport)
    }

    /// The process a child starts as; for spawn and forkserver, after re-importing the module.
    pub(super) fn child_process(
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
                    gpu_libraries: parent.gpu_libraries.clone(),
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
    pub(super) fn inherit_visibility(&mut self, span: Span) {
        let narrowed = self.context().env.keys().any(|k| {
            crate::libraries::env_role(k) == Some(crate::libraries::EnvRole::NarrowsVisibility)
        });
        if narrowed && self.proc_ref().bound.is_none() {
            self.proc().bound = Some(span);
            self.narrowed(span);
        }
    }

    /// What a forked child inherits through what it is handed, and frees at its exit.
    pub(super) fn held_by_child(
        &self,
        method: StartMethod,
        launcher: &'static Launcher,
        parent_initialised: bool,
        entries: &[Entry],
    ) -> Option<(Span, String)> {
        match method {
            StartMethod::Fork if parent_initialised && launcher.inherits_handed => {
                entries.iter().find_map(|(callee, args)| {
                    std::iter::once(callee)
                        .chain(args)
                        .find_map(|v| self.held_inside(v, HELD_DEPTH, true, &mut 0))
                })
            }
            _ => None,
        }
    }

    /// A spawned or forkserver child of a notebook: unpickling its entries runs while it
    /// bootstraps, as a re-import of the main would, and what the notebook defines cannot be
    /// unpickled (GPU006): that child never runs it, and no one else calls it as its entry point.
    pub(super) fn unpickle_from_notebook(&mut self, entries: &mut Vec<Entry>) {
        self.proc().reimport = true;
        self.import_definitions(entries);
        self.proc().reimport = false;
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

    /// Runs `entries` in a child created at `span`.
    pub(super) fn run_child(
        &mut self,
        span: Span,
        launcher: &'static Launcher,
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
        let fuel = self.budget.start_child(self.procs.len() == 1);
        let budgets = std::mem::replace(&mut self.budget.statement_budgets, false);
        let frames = self.take_frames_for_child();
        let trail = self.take_trail();
        // A child runs its own code, on whichever rank started it.
        let outer = self.control.take_depths();
        let held = self.held_by_child(start.method, launcher, parent_init.is_some(), &entries);
        let prelude = std::mem::take(&mut start.prelude);
        let (mut child, parent_init) = self.child_process(start.method, parent_init);
        child.child_of = Some(span);
        self.procs.push(child);
        self.emit(Effect::ChildStarted(ChildStart {
            span,
            launcher,
            start_method: start.method,
            start_method_source: start.source,
            parent_init: parent_init.clone(),
            code: Some(code.into()),
            at_module_scope,
            during_reimport,
            other_layer_start: start.other_layer,
            default_in_entry: start.default_in_entry,
            made_by: start.made_by,
            repeated: outer.repeats(),
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
            self.unpickle_from_notebook(&mut entries);
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
        self.put_frames_after_child(frames);
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
    pub(super) fn import_definitions(&mut self, entries: &[Entry]) {
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
    pub(super) fn defining_files(
        &self,
        value: &Value,
        depth: u32,
        out: &mut Vec<crate::source::FileId>,
    ) {
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
    pub(super) fn run_forked_block(
        &mut self,
        fork_span: Span,
        launcher: &'static Launcher,
        body: &'m [Stmt],
    ) {
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
            launcher,
            start_method: StartMethod::Fork,
            start_method_source: Some(fork_span),
            parent_init,
            code: Some("the child branch".into()),
            at_module_scope,
            during_reimport,
            other_layer_start,
            default_in_entry: None,
            made_by: None,
            repeated: self.control.repeats(),
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
            launcher: &launchers::OS_FORK,
            start_method: StartMethod::Fork,
            start_method_source: Some(fork_span),
            parent_init,
            code: Some("the code after the parent exits".into()),
            at_module_scope,
            during_reimport,
            other_layer_start,
            default_in_entry: None,
            made_by: None,
            repeated: self.control.repeats(),
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

    /// Pinned host memory that `value` is or holds (in its items, attributes, a closure's
    /// variables, a partial's arguments), or a CUDA object it is or holds in its items, `depth`
    /// levels down, looking at `seen` values at most: where it was made, and what it is. CUDA
    /// objects are not looked for inside objects and closures: the values that reach an object's
    /// attributes include every result of a call gpulint does not model that took a CUDA argument,
    /// which a child does not hold (a trainer's collator holds the trainer, whose attributes look
    /// CUDA); pinned memory only comes from an explicit `pin_memory`.
    pub(super) fn held_inside(
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
            Value::HostTensor {
                pinned: Some(site), ..
            } => Some((**site, "pinned host memory".into())),
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

/// A child's first GPU work, done by code gpulint does not follow (an engine's worker, a
/// preloaded server's handler, a library's pipeline): a context the child creates, which fails
/// where CUDA was initialised before the fork.
pub(super) fn gpu_work(span: Span, what: String) -> Effect {
    Effect::CudaInit {
        site: CudaInitSite {
            span,
            level: Init::Context,
            what: what.into(),
        },
        fails_in_child: true,
    }
}
