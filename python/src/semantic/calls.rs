//! Calls: the program's own functions, classes and callable objects, with their arguments bound;
//! attributes; process APIs once a row has said what they are. Library rows are applied in
//! `library.rs`.

use rustc_hash::FxHashMap as HashMap;

use gpulint_core::analysis::Analysis;
use gpulint_core::effect::{Backend, Binding, DeviceIndex, Effect, Handed};

use super::value::{dotted, Device, Value};
use super::{Interp, Object};
use crate::libraries::processes::{Layer, ProcessApi, StartMethod};
use crate::libraries::{self, torch, Param};
use crate::model::{ClassId, Expr, ExprKind, FuncId, Keyword, Receives};
use crate::source::Span;

/// How long a chain of single bases `find_in_classes` walks before it takes the general path (a
/// cycle of bases ends there too).
const MAX_SINGLE_BASES: usize = 64;

/// A call's evaluated arguments, with their expressions for spans and names.
pub(super) struct Args<'m> {
    pub pos: Vec<(Value, &'m Expr)>,
    pub kw: Vec<(String, Value, &'m Expr)>,
    /// A `**kwargs` whose keys are not known: any keyword not in `kw` may be in it.
    pub opaque_kwargs: bool,
    /// A `*args` among the positional arguments: positions after it are not known.
    pub starred: bool,
    /// What the call calls, where that is a library name: the expression as written, and the
    /// name it resolved to before any alias (`torch.multiprocessing.Pool`).
    pub callee: Option<(&'m Expr, std::sync::Arc<str>)>,
}

impl<'m> Args<'m> {
    /// The argument at `index` or named `name`.
    pub fn get(&self, index: usize, name: &str) -> Option<(&Value, &'m Expr)> {
        self.kw
            .iter()
            .find(|(k, _, _)| k == name)
            .map(|(_, v, e)| (v, *e))
            .or_else(|| self.pos.get(index).map(|(v, e)| (v, *e)))
    }
    pub fn kw(&self, name: &str) -> Option<(&Value, &'m Expr)> {
        self.get(usize::MAX, name)
    }
    pub fn values(&self) -> Vec<Value> {
        self.pos.iter().map(|(v, _)| v.clone()).collect()
    }
    pub fn kw_values(&self) -> Vec<(String, Value)> {
        self.kw
            .iter()
            .map(|(k, v, _)| (k.clone(), v.clone()))
            .collect()
    }
}

/// A name that says it holds a device or an ordinal: `device`, `self.device`, `gpu_id`, `local_rank`.
/// Its index is unknown here, so it counts as chosen per worker; but another object's `.device`
/// is where that object already lives, and a device's kind, name or count names no GPU: neither
/// is a choice made here (`DeviceIndex::Inherited`).
fn names_a_device(expr: &Expr) -> Option<DeviceIndex> {
    let dotted = expr.dotted()?.to_ascii_lowercase();
    let (owner, last) = match dotted.rsplit_once('.') {
        Some((owner, last)) => (Some(owner), last),
        None => (None, dotted.as_str()),
    };
    let hints = ["rank", "gpu", "device", "cuda"];
    if !hints.iter().any(|h| last.contains(h)) && last != "dev" {
        return None;
    }
    let read_back = last == "device" && owner.is_some_and(|o| o != "self");
    let not_an_index = ["type", "kind", "name", "count"];
    if read_back || not_an_index.iter().any(|w| last.contains(w)) {
        return Some(DeviceIndex::Inherited);
    }
    Some(DeviceIndex::PerWorker)
}

impl<'m, A: Analysis> Interp<'m, A> {
    /// The device an argument names: its value, else what its name says. A global rank used
    /// as one is reported here, where the index is passed.
    pub(super) fn device_arg(&mut self, value: &Value, expr: &Expr) -> Option<Device> {
        match value {
            // `device=x.device` of an `x` not known here: wherever `x` lives, maybe the CPU.
            Value::Unknown => match names_a_device(expr)? {
                DeviceIndex::Inherited => None,
                index => Some(Device::Cuda(index)),
            },
            Value::GlobalRank(local) => {
                self.emit(Effect::DeviceFromGlobalRank {
                    span: expr.span,
                    local: local.and_then(|var| self.local_rank_read(var)),
                });
                value.device()
            }
            v => v.device(),
        }
    }

    /// An operation on tensors (`a @ b`, `torch.matmul(a, b)`): on host tensors, torch runs it on
    /// its intra-op thread pool, whose threads start here. `None` when no operand is known to be a
    /// host tensor, or one is on CUDA.
    pub(super) fn host_compute(
        &mut self,
        span: Span,
        op: &str,
        operands: &[Value],
    ) -> Option<Value> {
        let on_host = |v: &Value| matches!(v, Value::HostTensor { .. });
        if operands.iter().any(|v| matches!(v, Value::Cuda(_))) || !operands.iter().any(on_host) {
            return None;
        }
        self.emit(Effect::HostCompute {
            span,
            what: format!(
                "{op} computes on host tensors with torch's intra-op thread pool (OpenMP)"
            )
            .into(),
        });
        Some(Value::host())
    }

    /// Calling a layer or model whose parameters are in host memory runs its forward pass on the
    /// intra-op thread pool: a `torch.nn` layer, or a project's module that keeps such layers
    /// (its `__call__` is `nn.Module`'s, which runs `forward`).
    fn call_host_module(&mut self, callee: &Value, span: Span, name: &str) {
        if matches!(callee, Value::HostTensor { .. }) || self.holds_host_layers(callee) {
            self.host_compute(span, &format!("calling `{name}`"), &[Value::host()]);
        }
    }

    /// A device ordinal argument (`torch.device("cuda", i)`): a constant, else per worker. A
    /// global rank used as one is reported, as in `device_arg`.
    pub(super) fn ordinal_arg(&mut self, value: &Value, expr: &Expr) -> DeviceIndex {
        match value {
            Value::Int(i) => DeviceIndex::Fixed(*i),
            Value::GlobalRank(local) => {
                self.emit(Effect::DeviceFromGlobalRank {
                    span: expr.span,
                    local: local.and_then(|var| self.local_rank_read(var)),
                });
                DeviceIndex::PerWorker
            }
            _ => DeviceIndex::PerWorker,
        }
    }

    pub(super) fn eval_call(
        &mut self,
        call: &'m Expr,
        func: &'m Expr,
        args: &'m [Expr],
        keywords: &'m [Keyword],
    ) -> Value {
        let (receiver, callee) = match &func.kind {
            ExprKind::Attribute { value, attr } => {
                let recv = self.eval(value);
                let callee = self.attribute(&recv, attr);
                if let Value::Cuda(obj) = &callee {
                    self.use_cuda_object(obj, func.span, attr, obj.global.is_some());
                }
                self.call_host_module(&callee, func.span, attr);
                (Some((recv, &**attr)), callee)
            }
            _ => {
                let callee = self.eval(func);
                // `get_model()(x)`: calling a CUDA model returned by another call uses it.
                if let Value::Cuda(obj) = &callee {
                    self.use_cuda_object(
                        obj,
                        func.span,
                        "the returned model",
                        obj.global.is_some(),
                    );
                }
                self.call_host_module(&callee, func.span, "the model");
                (None, callee)
            }
        };
        let mut args = self.eval_args(args, keywords);
        if let Value::Qualified(name) = &callee {
            args.callee = Some((func, name.clone()));
            self.state_call(name, &args, call.span);
        }
        if let (
            Some((Value::Sequence(_) | Value::Mapping(_), method)),
            ExprKind::Attribute { value, .. },
        ) = (&receiver, &func.kind)
        {
            if libraries::python::CONTAINER_MUTATORS.contains(method) {
                self.changed_in_place(value, call.span);
            }
        }
        if let (
            Some((Value::Sequence(items), "append" | "extend")),
            ExprKind::Attribute { value, .. },
        ) = (&receiver, &func.kind)
        {
            // `workers.append(p)`: later loops over `workers` see `p`.
            if let ExprKind::Name(list) = &value.kind {
                let mut items = items.to_vec();
                match (&receiver, args.pos.first()) {
                    (Some((_, "extend")), Some((Value::Sequence(more), _))) => {
                        items.extend(more.iter().cloned())
                    }
                    (_, Some((v, _))) => items.push(v.clone()),
                    _ => {}
                }
                self.store(list, Value::seq(items), call.span);
                return Value::None;
            }
        }
        if let (Some((Value::Mapping(entries), "update")), ExprKind::Attribute { value, .. }) =
            (&receiver, &func.kind)
        {
            // `kwargs.update(device_id=...)`: a later `f(**kwargs)` passes the key.
            if let ExprKind::Name(name) = &value.kind {
                let added = args.pos.iter().flat_map(|(v, _)| match v {
                    Value::Mapping(more) => more.to_vec(),
                    _ => Vec::new(),
                });
                let kw = args.kw.iter().map(|(k, v, _)| (k.clone(), v.clone()));
                let updated = super::value::with_entries(entries, added.chain(kw));
                self.store(name, updated, call.span);
                return Value::None;
            }
        }
        if let Some((recv, method)) = &receiver {
            if args.pos.is_empty() && args.kw.is_empty() {
                if let Some(v) = recv.plain_method(method) {
                    return v;
                }
            }
            self.pending_call = Some(call.span);
            let called = self.call_method(call.span, recv, method, &callee, &args);
            self.pending_call = None;
            if let Some(v) = called {
                return v;
            }
        }
        self.pending_call = Some(call.span);
        let result = self.call_value(call.span, &callee, &args);
        self.pending_call = None;
        result
    }

    /// A call's arguments, evaluated left to right.
    pub(super) fn eval_args(&mut self, args: &'m [Expr], keywords: &'m [Keyword]) -> Args<'m> {
        let pos = args.iter().map(|e| (self.eval(e), e)).collect();
        let mut kw = Vec::new();
        let mut opaque_kwargs = false;
        for k in keywords {
            let value = self.eval(&k.value);
            match (&k.name, value) {
                (Some(name), value) => kw.push((name.clone(), value, &k.value)),
                // `**kwargs` from a known dict: its keys are keywords of the call.
                (None, Value::Mapping(entries)) => {
                    let entries = std::sync::Arc::unwrap_or_clone(entries);
                    kw.extend(entries.into_iter().map(|(name, v)| (name, v, &k.value)));
                }
                (None, _) => opaque_kwargs = true,
            }
        }
        let starred = args.iter().any(|e| matches!(e.kind, ExprKind::Starred(_)));
        Args {
            pos,
            kw,
            opaque_kwargs,
            starred,
            callee: None,
        }
    }

    /// Calls a callable value.
    pub(super) fn call_value(&mut self, span: Span, callee: &Value, args: &Args<'m>) -> Value {
        if let Value::Qualified(name) = callee {
            return self.call_library(span, name, args);
        }
        if let Some(v) = self.forking_method(span, callee, "__call__", args) {
            return v;
        }
        self.call_callable(callee, args.values(), args.kw_values())
            .unwrap_or_else(|| passthrough(args))
    }

    /// Calls a callable with positional values only (pool functions, transforms, partials).
    pub(super) fn call_plain(&mut self, callee: &Value, values: Vec<Value>) -> Value {
        self.call_callable(callee, values, Vec::new())
            .unwrap_or_default()
    }

    /// Calls something the module defined (a function, method, class, partial, transform chain or
    /// callable instance), or fetches an item of a dataset of arguments; `None` when the callee is
    /// not one of those.
    fn call_callable(
        &mut self,
        callee: &Value,
        values: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> Option<Value> {
        Some(match callee {
            Value::OneOf(items) => {
                let mut result = Value::Unknown;
                for item in items {
                    let r = self.call_callable(item, values.clone(), kwargs.clone())?;
                    result = result.join(r);
                }
                result
            }
            Value::Function(id, captures) => {
                self.call_function(*id, captures.clone(), None, values, kwargs)
            }
            Value::BoundMethod(id, recv) => {
                self.call_function(*id, None, Some((**recv).clone()), values, kwargs)
            }
            Value::Class(id) => self.instantiate(*id, values, kwargs),
            Value::Object(id) => match self.world.object(*id).cloned() {
                Some(Object::Partial { func, args }) => {
                    let mut all = args;
                    all.extend(values);
                    self.call_plain(&func, all)
                }
                Some(Object::Deferred(func)) => self.alloc(Object::Partial { func, args: values }),
                Some(Object::Compose(steps)) => {
                    let mut v = values.into_iter().next().unwrap_or_default();
                    for step in steps {
                        v = self.call_plain(&step, vec![v]);
                    }
                    v
                }
                Some(Object::ArgumentsDataset { held, .. }) => {
                    let mut items = Vec::new();
                    for (obj, span, name) in &held {
                        self.use_cuda_object(obj, *span, name, obj.global.is_some());
                        items.push(Value::cuda(obj.derived()));
                    }
                    Value::seq(items)
                }
                Some(Object::Instance { class, .. }) => match self.find_method(class, "__call__") {
                    Some(call) => {
                        self.call_function(call, None, Some(callee.clone()), values, kwargs)
                    }
                    None => Value::Unknown,
                },
                _ => Value::Unknown,
            },
            // A library function handed over to be called (`initializer=torch.set_num_threads`):
            // only the thread limit matters here; its place is the child's start.
            Value::Qualified(name) if self.state_set_in_child(name) => Value::None,
            Value::Qualified(name) => match crate::libraries::lookup(name) {
                Some((crate::libraries::Behaviour::LimitsHostThreads { .. }, _))
                    if matches!(values.first(), Some(Value::Int(1))) =>
                {
                    let span = self.proc_ref().child_of?;
                    self.emit(Effect::HostThreadsLimited { span });
                    Value::None
                }
                _ => return None,
            },
            _ => return None,
        })
    }

    /// A new instance of a module class, built by its `__init__`.
    pub(super) fn instantiate(
        &mut self,
        class: ClassId,
        values: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> Value {
        let callee = super::memo::Callee::Class(class);
        let recording = match self.replay(callee, &values, &kwargs) {
            Some(Ok(copy)) => return copy,
            Some(Err(recording)) => Some((recording, values.clone(), kwargs.clone())),
            None => None,
        };
        let obj = self.alloc(Object::Instance {
            class,
            attrs: HashMap::default(),
            held_by: None,
        });
        if let Some(init) = self.find_method(class, "__init__") {
            self.call_function(init, None, Some(obj.clone()), values, kwargs);
        }
        if let Some((recording, values, kwargs)) = recording {
            self.record(callee, &obj, values, kwargs, recording);
        }
        obj
    }

    /// The class and its bases among the program's classes, each once, in lookup order; walked
    /// once per class until the bases change (attribute lookups ask again and again).
    fn classes_of(&self, class: ClassId) -> std::rc::Rc<[ClassId]> {
        if let Some(known) = self.world.lineages().borrow().get(&class) {
            return std::rc::Rc::clone(known);
        }
        let walked: std::rc::Rc<[ClassId]> = self.walk_classes(class).into();
        self.world
            .lineages()
            .borrow_mut()
            .insert(class, std::rc::Rc::clone(&walked));
        walked
    }

    fn walk_classes(&self, class: ClassId) -> Vec<ClassId> {
        let mut todo = vec![class];
        let mut out = Vec::new();
        while let Some(c) = todo.pop() {
            if out.contains(&c) {
                continue;
            }
            out.push(c);
            for base in self
                .world
                .class_bases()
                .get(&c)
                .into_iter()
                .flat_map(|b| b.iter())
            {
                if let Value::Class(b) = base {
                    todo.push(*b);
                }
            }
        }
        out
    }

    /// The first `Some` that `f` gives for the class and its bases, in `classes_of`'s order. A
    /// chain of single bases, the usual case, is walked without building the list; where it forks,
    /// the general path goes on from the fork (the classes before it gave nothing).
    pub(super) fn find_in_classes<T>(
        &self,
        class: ClassId,
        mut f: impl FnMut(ClassId) -> Option<T>,
    ) -> Option<T> {
        let mut c = class;
        for _ in 0..MAX_SINGLE_BASES {
            if let Some(found) = f(c) {
                return Some(found);
            }
            let bases = self
                .world
                .class_bases()
                .get(&c)
                .into_iter()
                .flat_map(|b| b.iter());
            let mut own = bases.filter_map(|b| match b {
                Value::Class(b) => Some(*b),
                _ => None,
            });
            match (own.next(), own.next()) {
                (None, _) => return None,
                (Some(base), None) => c = base,
                _ => break,
            }
        }
        self.classes_of(c).iter().copied().find_map(f)
    }

    /// A method defined on the class or one of its bases in this module.
    pub(super) fn find_method(&self, class: ClassId, name: &str) -> Option<FuncId> {
        self.find_in_classes(class, |c| self.class(c).method(name))
    }

    /// The process layer a class inherits from (`class Worker(mp.Process)`, through local bases),
    /// and the start method when the base came from a context (`class W(ctx.Process)`).
    pub(super) fn process_base(&self, class: ClassId) -> Option<(Layer, Option<StartMethod>)> {
        self.find_in_classes(class, |c| {
            let bases = self.world.class_bases().get(&c)?;
            bases.iter().find_map(|base| match base {
                Value::Qualified(q) => libraries::process_class_layer(q).map(|l| (l, None)),
                Value::Context(layer, m) => Some((*layer, Some(*m))),
                _ => None,
            })
        })
    }

    /// `owner.attr`.
    pub(super) fn attribute(&mut self, owner: &Value, attr: &str) -> Value {
        if let Value::OneOf(items) = owner {
            // `accelerator.set_device` where `accelerator` is one of several classes: each method.
            return items
                .iter()
                .map(|item| self.attribute(item, attr))
                .fold(Value::Unknown, Value::join);
        }
        match owner {
            Value::Qualified(q) => Value::Qualified(dotted(q, attr)),
            Value::Module(node) => self.module_attribute(*node, attr),
            Value::Object(id) => match self.world.object(*id) {
                Some(Object::Instance { class, attrs, .. }) => {
                    if let Some(v) = attrs.get(attr) {
                        return v.clone();
                    }
                    let class = *class;
                    if let Some(v) = self.class_attr(class, attr) {
                        return v;
                    }
                    self.find_method(class, attr)
                        .map_or(Value::Unknown, |f| self.method_value(f, class, Some(owner)))
                }
                _ => self
                    .library_attribute(owner, attr)
                    .unwrap_or(Value::Unknown),
            },
            Value::Class(id) => match self.class_attr(*id, attr) {
                Some(v) => v,
                None => self
                    .find_method(*id, attr)
                    .map(|f| self.method_value(f, *id, None))
                    .or_else(|| self.inherited_library_call(*id, attr))
                    .unwrap_or(Value::Unknown),
            },
            Value::Cuda(_) | Value::Unknown | Value::None => self
                .library_attribute(owner, attr)
                .unwrap_or(Value::Unknown),
            _ => Value::Unknown,
        }
    }

    /// A classmethod the project's class inherits from a library base with a row of its own
    /// (`Model.load_from_checkpoint` on a `LightningModule`): that row's name.
    fn inherited_library_call(&self, class: ClassId, attr: &str) -> Option<Value> {
        self.find_in_classes(class, |c| {
            self.world
                .class_bases()
                .get(&c)?
                .iter()
                .find_map(|base| match base {
                    Value::Qualified(q) => {
                        let name = dotted(q, attr);
                        libraries::lookup(&name).map(|_| Value::Qualified(name))
                    }
                    _ => None,
                })
        })
    }

    /// Method `f` read through `class`, or through `instance` of it: what its first parameter
    /// receives when it is called (`Model.get()` on a `@classmethod`: `cls` is the class).
    fn method_value(&self, f: FuncId, class: ClassId, instance: Option<&Value>) -> Value {
        match (self.func(f).receives(), instance) {
            (Receives::Instance, Some(instance)) => Value::bound_method(f, instance.clone()),
            (Receives::Class, _) => Value::bound_method(f, Value::Class(class)),
            (Receives::Instance, None) | (Receives::Nothing, _) => Value::Function(f, None),
        }
    }

    fn class_attr(&self, class: ClassId, attr: &str) -> Option<Value> {
        self.find_in_classes(class, |c| {
            self.world.class_attrs().get(&c)?.get(attr).cloned()
        })
    }

    pub(super) fn iterate_value(&mut self, v: &Value, span: Span) -> Value {
        match v.primary() {
            Value::Object(id) if matches!(self.world.object(*id), Some(Object::Loader { .. })) => {
                self.iterate_loader(*id, span)
            }
            Value::Sequence(items) => items.iter().cloned().fold(Value::Unknown, Value::join),
            // A dict iterates over its keys.
            Value::Mapping(entries) => entries
                .iter()
                .map(|(k, _)| Value::Str(k.as_str().into()))
                .fold(Value::Unknown, Value::join),
            other => other.clone(),
        }
    }

    /// This process binds its device at `span` (and, if `chooses`, picks one of its own there).
    /// The process sees only its own GPUs from `span` on (a visibility variable, Ray's `num_gpus`):
    /// its device is the first it sees, chosen by no call.
    pub(super) fn narrowed(&mut self, span: Span) {
        self.emit(Effect::DeviceBound {
            span,
            binding: Binding::Narrowed,
            chooses: false,
        });
    }

    pub(super) fn bind_device(&mut self, span: Span, chooses: bool) {
        self.proc().bound.get_or_insert(span);
        self.emit(Effect::DeviceBound {
            span,
            binding: Binding::Call,
            chooses,
        });
    }

    pub(super) fn init_process_group(
        &mut self,
        span: Span,
        args: &Args<'m>,
        backend: Param,
        device_id: Param,
        world_size: Param,
    ) {
        let backend = match args.param(backend) {
            // `init_process_group(**kwargs)` in a helper nobody calls: the backend may be in there.
            None if args.opaque_kwargs => Backend::Unknown,
            None | Some((Value::None, _)) => Backend::Default,
            Some((Value::Str(s), _)) => torch::backend(s),
            Some(_) => Backend::Default,
        };
        let device_id = matches!(args.param(device_id), Some((v, _)) if !matches!(v, Value::None));
        // One process (`world_size=1`, or `WORLD_SIZE=1` this process wrote for the `env://`
        // method): GPU 0 is the right device, and no other rank shares it.
        let one = match args.param(world_size) {
            Some((Value::Int(1), _)) => true,
            None => self
                .proc_ref()
                .env
                .get(torch::WORLD_SIZE_ENV)
                .is_some_and(|v| v == "1"),
            Some(_) => false,
        };
        if one {
            return;
        }
        // The group shows that this process is a rank under a launcher: a device owner made
        // earlier in it (accelerate's state) bound the rank's device there, before the group.
        if !self.device_bound() {
            if let Some(earlier) = self.proc_ref().launcher_binding {
                self.bind_device(earlier, false);
            }
        }
        self.proc().per_worker = true;
        self.emit(Effect::ProcessGroupCreated {
            span,
            backend,
            device_given: device_id,
        });
    }

    /// `Process`, `Pool`, `ProcessPoolExecutor`, `os.fork`, `torch.multiprocessing.spawn`...
    pub(super) fn call_process_api(
        &mut self,
        span: Span,
        name: &str,
        api: ProcessApi,
        layer: Layer,
        args: &Args<'m>,
        context: Option<(StartMethod, Span)>,
    ) -> Value {
        match api {
            ProcessApi::Process {
                target,
                args: params,
            } => {
                let made_by = self.made_by(span, layer, args, context);
                let (target, target_span) = match args.param(target) {
                    Some((v, e)) => (v.clone(), Some(e.span)),
                    None => (Value::Unknown, None),
                };
                let values = match args.param(params) {
                    Some((Value::Sequence(items), _)) => items.to_vec(),
                    _ => Vec::new(),
                };
                self.alloc(Object::Process {
                    target,
                    target_span,
                    args: values,
                    start: context,
                    layer,
                    made_by,
                })
            }
            ProcessApi::Pool { .. } => self.pool(span, layer, api, args, context),
            ProcessApi::Executor {
                context: param,
                initializer,
                initargs,
            } => {
                let start = context.or_else(|| {
                    args.param(param).and_then(|(v, e)| match v {
                        Value::Context(_, m) => Some((*m, e.span)),
                        _ => None,
                    })
                });
                let initializer = args.param(initializer).map(|(f, e)| {
                    let resolved = self.resolve_start(layer, start);
                    self.hand_over(
                        &[(f.clone(), e.span, Handed::Initializer)],
                        layer,
                        (resolved.method, resolved.source),
                    );
                    let initargs = match args.param(initargs) {
                        Some((Value::Sequence(items), _)) => items.to_vec(),
                        _ => Vec::new(),
                    };
                    (f.clone(), initargs)
                });
                let made_by = self.made_by(span, layer, args, context);
                self.alloc(Object::Executor {
                    span,
                    start,
                    made_by,
                    started_with: None,
                    initializer,
                })
            }
            ProcessApi::OsFork => {
                self.fork_calls.insert(span);
                self.alloc(Object::ForkResult { span })
            }
            ProcessApi::Spawns { .. } => {
                self.start_processes(span, api, args);
                Value::Unknown
            }
            ProcessApi::DaemonContext => Value::Qualified(name.into()),
        }
    }
}

/// The result of a call we do not model: a CUDA argument makes a CUDA result (tensor ops, wrappers).
pub(super) fn passthrough(args: &Args) -> Value {
    let values = args
        .pos
        .iter()
        .map(|(v, _)| v)
        .chain(args.kw.iter().map(|(_, v, _)| v));
    for v in values {
        if let Value::Cuda(obj) = v {
            return Value::cuda(obj.derived());
        }
    }
    Value::Unknown
}
