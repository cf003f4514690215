//! Children that library APIs start: a started `Process`, pools and executors and the calls that
//! run in their workers, `start_processes`-style launchers, a dataset's forking `map`, inference
//! engines' workers, a task worker's forked tasks and a preloading server's request handlers.

use gpulint_core::analysis::Analysis;
use gpulint_core::effect::{Handed, Nodes, OtherLayerStart};

use super::calls::Args;
use super::children::*;
use super::value::Value;
use super::{Interp, Object};
use crate::libraries::processes::launchers;
use crate::libraries::processes::{
    Layer, ProcessApi, StartMethod, WorkerCall, RUN_METHOD, WORKER_ARGS, WORKER_FUNC, WORKER_ITEMS,
};
use crate::libraries::{Behaviour, MethodBehaviour};
use crate::source::Span;

impl<'m, A: Analysis> Interp<'m, A> {
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
            &launchers::PROCESS_START,
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
                forked_from,
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
                // A forked worker is the parent as it was at the pool's construction (unless
                // workers are replaced later): what the parent started since is not its.
                let then = forked_from
                    .as_ref()
                    .filter(|_| start.method == StartMethod::Fork)
                    .and_then(|a| a.downcast_ref::<gpulint_core::analysis::Shared<A>>())
                    .cloned();
                let now = then.map(|then| std::mem::replace(&mut self.proc().analyses, then));
                let run = self.run_child(pool_span, &launchers::POOL, start, parent, entries, code);
                if let Some(now) = now {
                    self.proc().analyses = now;
                }
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
                self.run_child(ex_span, &launchers::EXECUTOR, start, parent, entries, code);
                Some(Value::Unknown)
            }
            _ => None,
        }
    }

    /// The function a pool method runs, the arguments one call of it gets, and where the
    /// function is given.
    pub(super) fn pool_call(
        &self,
        call: WorkerCall,
        args: &Args<'m>,
    ) -> (Value, Vec<Value>, Option<Span>) {
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
        let run = self.run_child(span, &launchers::POOL, start, parent.clone(), entries, code);
        let forked_with = if forkserver { run.parent_init } else { parent };
        let forked_from = (!refork).then(|| {
            let analyses = self.proc_ref().analyses.clone();
            std::sync::Arc::new(analyses) as std::sync::Arc<dyn std::any::Any + Send + Sync>
        });
        self.alloc(Object::Pool {
            span,
            start: context,
            layer,
            made_by,
            forked_with,
            forked_from,
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
            &launchers::START_PROCESSES,
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
                &launchers::DATASET_MAP,
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
            let start = self.own_fork();
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
            let what = format!("each worker uses what `{}` prepared on the GPU", func.name);
            let start = Start {
                prelude: vec![gpu_work(func.name_span, what)],
                ..Start::explicit(StartMethod::Fork, None)
            };
            let code = "each worker".to_string();
            self.run_child(
                func.name_span,
                &launchers::SERVER_HOOK,
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
            prelude: vec![gpu_work(
                span,
                "each worker creates a CUDA context on its GPU".into(),
            )],
            ..Start::explicit(method, None)
        };
        let code = match several {
            true => "each engine worker",
            false => "the engine's process",
        };
        self.run_child(
            span,
            &launchers::ENGINE_WORKERS,
            start,
            parent,
            Vec::new(),
            code.to_string(),
        );
        in_child
    }
}
