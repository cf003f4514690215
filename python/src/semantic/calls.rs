//! Calls: the module's own functions and classes, methods on known values, and library calls looked
//! up in the tables of `crate::libraries`.

use rustc_hash::FxHashMap as HashMap;

use gpulint_core::analysis::Analysis;
use gpulint_core::effect::{Backend, Binding, CudaObject, DeviceIndex, Effect, Init};

use super::value::{Device, Value};
use super::{Interp, Object};
use crate::libraries::processes::{self, Layer, ProcessApi, StartMethod};
use crate::libraries::{self, huggingface, torch};
use crate::model::{ClassId, Expr, ExprKind, FuncId, Keyword};
use crate::source::Span;

/// A call's evaluated arguments, with their expressions for spans and names.
pub(super) struct Args<'m> {
    pub pos: Vec<(Value, &'m Expr)>,
    pub kw: Vec<(String, Value, &'m Expr)>,
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
/// Its index is unknown here, so it counts as chosen per worker.
fn names_a_device(expr: &Expr) -> Option<DeviceIndex> {
    let dotted = expr.dotted()?.to_ascii_lowercase();
    let last = dotted.rsplit('.').next().unwrap_or(&dotted);
    let hints = ["rank", "gpu", "device", "cuda"];
    (hints.iter().any(|h| last.contains(h)) || last == "dev").then_some(DeviceIndex::PerWorker)
}

impl<'m, A: Analysis> Interp<'m, A> {
    /// The device an argument names: its value, else what its name says.
    pub(super) fn device_arg(&self, value: &Value, expr: &Expr) -> Option<Device> {
        match value {
            Value::Unknown => names_a_device(expr).map(Device::Cuda),
            v => v.device(),
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
                (Some((recv, attr.as_str())), callee)
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
                (None, callee)
            }
        };
        let pos = args.iter().map(|e| (self.eval(e), e)).collect();
        let mut kw = Vec::new();
        for k in keywords {
            let value = self.eval(&k.value);
            match (&k.name, value) {
                (Some(name), value) => kw.push((name.clone(), value, &k.value)),
                // `**kwargs` from a known dict: its keys are keywords of the call.
                (None, Value::Mapping(entries)) => {
                    kw.extend(entries.into_iter().map(|(name, v)| (name, v, &k.value)));
                }
                (None, _) => {}
            }
        }
        let args = Args { pos, kw };
        if let (
            Some((Value::Sequence(items), "append" | "extend")),
            ExprKind::Attribute { value, .. },
        ) = (&receiver, &func.kind)
        {
            // `workers.append(p)`: later loops over `workers` see `p`.
            if let ExprKind::Name(list) = &value.kind {
                let mut items = items.clone();
                match (&receiver, args.pos.first()) {
                    (Some((_, "extend")), Some((Value::Sequence(more), _))) => {
                        items.extend(more.iter().cloned())
                    }
                    (_, Some((v, _))) => items.push(v.clone()),
                    _ => {}
                }
                self.store(list, Value::Sequence(items), call.span);
                return Value::None;
            }
        }
        if let Some((recv, method)) = &receiver {
            if let Some(v) = self.call_method(call.span, recv, method, &callee, &args) {
                return v;
            }
        }
        self.call_value(call.span, &callee, &args)
    }

    /// Calls a callable value.
    pub(super) fn call_value(&mut self, span: Span, callee: &Value, args: &Args<'m>) -> Value {
        if let Value::Qualified(name) = callee {
            let name = libraries::canonical(name).to_string();
            return self.call_library(span, &name, args);
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
    /// callable instance); `None` when the callee is not one of those.
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
            Value::Object(id) => match self.heap.get(*id).cloned() {
                Some(Object::Partial { func, args }) => {
                    let mut all = args;
                    all.extend(values);
                    self.call_plain(&func, all)
                }
                Some(Object::Compose(steps)) => {
                    let mut v = values.into_iter().next().unwrap_or_default();
                    for step in steps {
                        v = self.call_plain(&step, vec![v]);
                    }
                    v
                }
                Some(Object::Instance { class, .. }) => match self.find_method(class, "__call__") {
                    Some(call) => {
                        self.call_function(call, None, Some(callee.clone()), values, kwargs)
                    }
                    None => Value::Unknown,
                },
                _ => Value::Unknown,
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
        let obj = self.alloc(Object::Instance {
            class,
            attrs: HashMap::default(),
        });
        if let Some(init) = self.find_method(class, "__init__") {
            self.call_function(init, None, Some(obj.clone()), values, kwargs);
        }
        obj
    }

    /// A method defined on the class or one of its bases in this module.
    pub(super) fn find_method(&self, class: ClassId, name: &str) -> Option<FuncId> {
        let mut todo = vec![class];
        let mut seen = Vec::new();
        while let Some(c) = todo.pop() {
            if seen.contains(&c) {
                continue;
            }
            seen.push(c);
            if let Some(f) = self.class(c).method(name) {
                return Some(f);
            }
            for base in self.class_bases.get(&c).into_iter().flat_map(|b| b.iter()) {
                if let Value::Class(b) = base {
                    todo.push(*b);
                }
            }
        }
        None
    }

    /// Library bases of a class, through local bases (`class Worker(mp.Process)`).
    pub(super) fn library_bases(&self, class: ClassId) -> Vec<String> {
        let mut out = Vec::new();
        let mut todo = vec![class];
        let mut seen = Vec::new();
        while let Some(c) = todo.pop() {
            if seen.contains(&c) {
                continue;
            }
            seen.push(c);
            for base in self.class_bases.get(&c).into_iter().flat_map(|b| b.iter()) {
                match base {
                    Value::Class(b) => todo.push(*b),
                    Value::Qualified(q) => out.push(libraries::canonical(q).to_string()),
                    Value::Context(_, m) => out.push(format!("context:{}", m.name())),
                    _ => {}
                }
            }
        }
        out
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
            Value::Qualified(q) => Value::Qualified(format!("{q}.{attr}")),
            Value::Module(node) => self.module_attribute(*node, attr),
            Value::Object(id) => match self.heap.get(*id) {
                Some(Object::Instance { class, attrs }) => {
                    if let Some(v) = attrs.get(attr) {
                        return v.clone();
                    }
                    let class = *class;
                    if let Some(v) = self.class_attr(class, attr) {
                        return v;
                    }
                    match self.find_method(class, attr) {
                        Some(f) => Value::BoundMethod(f, Box::new(owner.clone())),
                        None => Value::Unknown,
                    }
                }
                Some(Object::Accelerator) if attr == "device" => {
                    Value::Device(Device::Cuda(DeviceIndex::PerWorker))
                }
                _ => Value::Unknown,
            },
            Value::Class(id) => match self.class_attr(*id, attr) {
                Some(v) => v,
                None => self
                    .find_method(*id, attr)
                    .map_or(Value::Unknown, |f| Value::Function(f, None)),
            },
            Value::Cuda(obj) => match attr {
                "device" => Value::Device(Device::Cuda(obj.index)),
                // Metadata, not tensors: `model.__class__.__name__`, `model.config`.
                "shape" | "dtype" | "ndim" | "is_cuda" | "training" | "T" | "config"
                | "name_or_path" | "generation_config" => Value::Unknown,
                _ if attr.starts_with("__") => Value::Unknown,
                _ => Value::Cuda(CudaObject {
                    global: None,
                    ..obj.clone()
                }),
            },
            _ => Value::Unknown,
        }
    }

    fn class_attr(&self, class: ClassId, attr: &str) -> Option<Value> {
        let mut todo = vec![class];
        while let Some(c) = todo.pop() {
            if let Some(v) = self.class_attrs.get(&c).and_then(|a| a.get(attr)) {
                return Some(v.clone());
            }
            for base in self.class_bases.get(&c).into_iter().flat_map(|b| b.iter()) {
                if let Value::Class(b) = base {
                    todo.push(*b);
                }
            }
        }
        None
    }

    /// Methods whose meaning comes from the receiver's kind; `None` falls back to calling `callee`.
    fn call_method(
        &mut self,
        span: Span,
        recv: &Value,
        method: &str,
        callee: &Value,
        args: &Args<'m>,
    ) -> Option<Value> {
        if let Value::Qualified(_) = recv {
            return None;
        }
        if let Value::BoundMethod(..) = callee {
            return None;
        }
        // `get_accelerator().set_device(local_rank)`: a device abstraction gpulint cannot see into
        // binds the device all the same (deepspeed, colossalai).
        if matches!(recv, Value::Unknown) && matches!(method, "set_device" | "set_device_index") {
            let index = args
                .get(0, "device")
                .and_then(|(v, e)| self.device_arg(v, e))
                .and_then(Device::cuda_index);
            self.bind_device(span, index == Some(DeviceIndex::PerWorker));
            return Some(Value::Unknown);
        }
        if let Some(v) = self.call_process_method(span, recv, method, args) {
            return Some(v);
        }
        if let Value::Context(layer, start) = recv {
            let name = match *layer {
                Layer::Multiprocessing => format!("multiprocessing.{method}"),
                Layer::Multiprocess => format!("multiprocess.{method}"),
            };
            return Some(self.call_process_api(span, &name, args, Some((*start, span))));
        }
        if matches!(self.object(recv), Some(Object::Accelerator)) && method == "prepare" {
            let mut out = Vec::new();
            for (_, e) in &args.pos {
                out.push(self.new_cuda_object(
                    e.span,
                    DeviceIndex::PerWorker,
                    "`accelerator.prepare` moves it to CUDA".into(),
                ));
            }
            return Some(if out.len() == 1 {
                out.remove(0)
            } else {
                Value::Sequence(out)
            });
        }
        match method {
            "cuda" => {
                let index = match args.get(0, "device") {
                    None => DeviceIndex::Current,
                    Some((v, e)) => self
                        .device_arg(v, e)
                        .and_then(Device::cuda_index)
                        .unwrap_or(DeviceIndex::PerWorker),
                };
                Some(self.new_cuda_object(span, index, "`.cuda()` creates a CUDA context".into()))
            }
            "to" => {
                let device = args
                    .kw("device")
                    .or_else(|| args.pos.first().map(|(v, e)| (v, *e)))
                    .and_then(|(v, e)| self.device_arg(v, e));
                Some(match device {
                    Some(Device::Cuda(index)) => self.new_cuda_object(
                        span,
                        index,
                        "`.to(...)` a CUDA device creates a CUDA context".into(),
                    ),
                    Some(_) => Value::Unknown,
                    None => match recv {
                        Value::Cuda(obj) => Value::Cuda(CudaObject {
                            global: None,
                            ..obj.clone()
                        }),
                        _ => Value::Unknown,
                    },
                })
            }
            "make_context" => Some(self.new_cuda_object(
                span,
                DeviceIndex::Current,
                "`make_context()` creates a CUDA context".into(),
            )),
            m if torch::TO_CPU_METHODS.contains(&m) => Some(Value::Unknown),
            m if huggingface::DATASET_FORKING_METHODS.contains(&m)
                && (matches!(self.object(recv), Some(Object::HfDataset))
                    || args.kw("num_proc").is_some()) =>
            {
                Some(self.dataset_map(span, recv, args))
            }
            _ => match recv {
                Value::Cuda(obj) => Some(Value::Cuda(CudaObject {
                    global: None,
                    ..obj.clone()
                })),
                _ if matches!(callee, Value::Unknown) => Some(passthrough(args)),
                _ => None,
            },
        }
    }

    /// A call to a library function by qualified name.
    fn call_library(&mut self, span: Span, name: &str, args: &Args<'m>) -> Value {
        if processes::process_api(name).is_some() {
            return self.call_process_api(span, name, args, None);
        }
        if let Some((_, layer)) = processes::GET_CONTEXT.iter().find(|(n, _)| *n == name) {
            let start = match args
                .get(0, "method")
                .and_then(|(v, _)| v.as_str().and_then(StartMethod::parse))
            {
                Some(m) => m,
                None => self.resolve_start(*layer, None).0,
            };
            return Value::Context(*layer, start);
        }
        if let Some((_, layer)) = processes::SET_START_METHOD.iter().find(|(n, _)| *n == name) {
            if let Some(m) = args
                .get(0, "method")
                .and_then(|(v, _)| v.as_str().and_then(StartMethod::parse))
            {
                std::sync::Arc::make_mut(&mut self.proc().start_methods)
                    .insert(super::process::layer_key(*layer), (m, span));
                let at_module_scope = self.frames.is_empty();
                self.emit(Effect::StartMethodSet {
                    span,
                    method: m,
                    at_module_scope,
                });
            }
            return Value::None;
        }
        if processes::EXITS.contains(&name) || processes::EXECS.contains(&name) {
            self.proc().exited = true;
            return Value::Unknown;
        }
        match name {
            "builtins.dict" if args.pos.is_empty() => {
                return Value::Mapping(args.kw_values());
            }
            "functools.partial" => {
                let mut values = args.values().into_iter();
                let func = values.next().unwrap_or_default();
                return self.alloc(Object::Partial {
                    func,
                    args: values.collect(),
                });
            }
            "torchvision.transforms.Compose" | "torchvision.transforms.v2.Compose" => {
                let steps = match args.get(0, "transforms") {
                    Some((Value::Sequence(items), _)) => items.clone(),
                    _ => Vec::new(),
                };
                return self.alloc(Object::Compose(steps));
            }
            "os.getenv" | "os.environ.get" => {
                return match args
                    .get(0, "key")
                    .and_then(|(v, _)| v.as_str().map(str::to_string))
                {
                    Some(key) => self.read_env(&key),
                    None => Value::Unknown,
                };
            }
            "os.environ.setdefault" | "os.putenv" => {
                if let (Some((Value::Str(k), _)), Some((v, _))) =
                    (args.pos.first(), args.pos.get(1))
                {
                    let (k, v) = (k.clone(), v.clone());
                    self.write_env(&k, &v, span);
                }
                return Value::Unknown;
            }
            "builtins.int" | "builtins.str" => {
                return match args.pos.first() {
                    Some((Value::Rank, _)) => Value::Rank,
                    Some((Value::Int(i), _)) if name == "builtins.int" => Value::Int(*i),
                    Some((Value::Str(s), _)) if name == "builtins.int" => {
                        s.parse().map_or(Value::Unknown, Value::Int)
                    }
                    Some((Value::Int(i), _)) => Value::Str(i.to_string()),
                    Some((Value::Str(s), _)) => Value::Str(s.clone()),
                    _ => Value::Unknown,
                };
            }
            "builtins.enumerate" | "builtins.iter" | "builtins.zip" | "builtins.list"
            | "tqdm.tqdm" | "tqdm.auto.tqdm" | "builtins.next" => {
                let mut out = Vec::new();
                for (v, e) in &args.pos {
                    out.push(self.iterate_value(v, e.span));
                }
                return match name {
                    "builtins.enumerate" => Value::Sequence(vec![Value::Sequence(vec![
                        Value::Unknown,
                        out.pop().unwrap_or_default(),
                    ])]),
                    "builtins.zip" => Value::Sequence(vec![Value::Sequence(out)]),
                    _ => Value::Sequence(out),
                };
            }
            "fire.Fire" | "typer.run" | "jsonargparse.CLI" => {
                if let Some((f, _)) = args.pos.first() {
                    let f = f.clone();
                    return self.call_plain(&f, Vec::new());
                }
                return Value::Unknown;
            }
            _ => {}
        }
        if let Some(v) = self.call_torch(span, name, args) {
            return v;
        }
        if self.proc_ref().default_cuda.is_some() && torch::creates_parameters(name) {
            let short = name.rsplit('.').next().unwrap_or(name);
            return self.new_cuda_object(
                span,
                DeviceIndex::Current,
                format!("`{short}` creates its parameters on CUDA, the default device"),
            );
        }
        if let Some(v) = self.call_huggingface(span, name, args) {
            return v;
        }
        if let Some((mut init, reason)) = libraries::cuda_call(name) {
            if name == "torch.cuda.is_available"
                && self
                    .proc_ref()
                    .env
                    .get(torch::NVML_CHECK_ENV)
                    .is_some_and(|v| v == "1")
            {
                init = Init::None;
            }
            let short = name.rsplit('.').next().unwrap_or(name);
            let what = format!("`{short}` {reason}");
            let fails = init == Init::Context
                || (init == Init::Driver && !torch::SAFE_IN_FORKED_CHILD.contains(&name));
            if init == Init::Context && !name.starts_with("torch.") {
                return self.new_cuda_object(span, DeviceIndex::Current, what);
            }
            self.cuda_event(span, init, what, fails);
            return Value::Unknown;
        }
        if name.starts_with("torchvision.datasets.") {
            let transforms = ["transform", "target_transform", "transforms"]
                .iter()
                .filter_map(|k| args.kw(k).map(|(v, _)| v.clone()))
                .collect();
            return self.alloc(Object::LibraryDataset { transforms });
        }
        if name == torch::DATALOADER {
            return self.dataloader(span, args);
        }
        // Loaders handed to code we cannot see are assumed to be iterated there.
        let handed: Vec<(Value, Span)> = args
            .pos
            .iter()
            .map(|(v, e)| (v, *e))
            .chain(args.kw.iter().map(|(_, v, e)| (v, *e)))
            .filter(|(v, _)| matches!(self.object(v), Some(Object::Loader { .. })))
            .map(|(v, e)| (v.clone(), e.span))
            .collect();
        if name != "builtins.len" {
            for (v, span) in handed {
                self.iterate_value(&v, span);
            }
        }
        passthrough(args)
    }

    fn iterate_value(&mut self, v: &Value, span: Span) -> Value {
        match v.primary() {
            Value::Object(id) if matches!(self.heap.get(*id), Some(Object::Loader { .. })) => {
                self.iterate_loader(*id, span)
            }
            Value::Sequence(items) => items.iter().cloned().fold(Value::Unknown, Value::join),
            other => other.clone(),
        }
    }

    /// PyTorch calls: device selection, allocation, loading, distributed.
    fn call_torch(&mut self, span: Span, name: &str, args: &Args<'m>) -> Option<Value> {
        if torch::DEVICE_BINDERS.contains(&name) {
            let arg = args.get(0, "device");
            let index = arg
                .and_then(|(v, e)| self.device_arg(v, e))
                .and_then(Device::cuda_index);
            let short = name.rsplit('.').next().unwrap_or(name);
            self.cuda_event(
                span,
                Init::Context,
                format!("`{short}` creates a context on the device"),
                true,
            );
            let chooses = index == Some(DeviceIndex::PerWorker) || index.is_none() && arg.is_some();
            self.bind_device(span, chooses);
            return Some(Value::Unknown);
        }
        if name == torch::DEVICE {
            let first = args.get(0, "type");
            let device = match (first, args.get(1, "index")) {
                (Some((Value::Str(kind), _)), Some((index, _))) if kind == "cuda" => {
                    Some(Device::Cuda(match index {
                        Value::Int(i) => DeviceIndex::Fixed(*i),
                        _ => DeviceIndex::PerWorker,
                    }))
                }
                (Some((v, e)), None) => self.device_arg(v, e),
                _ => None,
            };
            return Some(device.map_or(Value::Unknown, Value::Device));
        }
        if torch::FACTORIES.contains(&name) {
            let device = args.kw("device").and_then(|(v, e)| self.device_arg(v, e));
            let short = name.rsplit('.').next().unwrap_or(name);
            return Some(match device {
                Some(Device::Cuda(index)) => self.new_cuda_object(
                    span,
                    index,
                    format!("`{short}(device=...)` allocates on CUDA"),
                ),
                Some(_) => Value::Unknown,
                None => match self.proc_ref().default_cuda {
                    Some(_) => self.new_cuda_object(
                        span,
                        DeviceIndex::Current,
                        format!("`{short}` allocates on CUDA, the default device"),
                    ),
                    None => passthrough(args),
                },
            });
        }
        if name == torch::SET_DEFAULT_DEVICE || name == torch::SET_DEFAULT_TENSOR_TYPE {
            let cuda = match args.pos.first() {
                Some((Value::Qualified(q), _)) => q.contains(".cuda."),
                Some((Value::Str(s), _)) => s.starts_with("cuda") || s.contains(".cuda."),
                Some((v, e)) => matches!(self.device_arg(v, e), Some(Device::Cuda(_))),
                None => false,
            };
            if cuda {
                self.proc().default_cuda.get_or_insert(span);
            }
            return Some(Value::None);
        }
        if name == torch::LOAD {
            return Some(match args.get(1, "map_location") {
                // The device is whatever the checkpoint was saved from, which the code does not
                // say: often the CPU (shards written by the same program), often cuda:0.
                None | Some((Value::None, _)) => Value::Unknown,
                Some((v, e)) => match self.device_arg(v, e) {
                    Some(Device::Cuda(index)) => self.new_cuda_object(
                        span,
                        index,
                        "`torch.load` maps the tensors to CUDA".into(),
                    ),
                    _ => Value::Unknown,
                },
            });
        }
        if name == torch::GET_DEVICE_MODULE {
            return Some(Value::Qualified("torch.get_device_module()".into()));
        }
        if torch::RANK_SOURCES.contains(&name) {
            self.proc().per_worker = true;
            return Some(Value::Rank);
        }
        if name == torch::INIT_PROCESS_GROUP {
            self.init_process_group(span, args);
            return Some(Value::None);
        }
        if name == torch::NEW_GROUP {
            let gloo = matches!(args.kw("backend"), Some((Value::Str(b), _)) if b.eq_ignore_ascii_case("gloo"));
            return Some(if gloo {
                Value::Qualified(torch::GLOO_GROUP.into())
            } else {
                Value::Unknown
            });
        }
        if torch::COLLECTIVES.contains(&name)
            || (name == torch::DDP && args.kw("device_ids").is_none())
        {
            let short = name.rsplit('.').next().unwrap_or(name);
            let is_gloo = |v: &Value| matches!(v, Value::Qualified(q) if q == torch::GLOO_GROUP);
            let on_gloo = args.pos.iter().any(|(v, _)| is_gloo(v))
                || args.kw("group").is_some_and(|(v, _)| is_gloo(v));
            let explicit =
                args.kw("device_ids").is_some() || args.kw("device").is_some() || on_gloo;
            self.emit(Effect::CollectiveRun {
                span,
                name: short.into(),
                explicit_device: explicit,
            });
            return Some(passthrough(args));
        }
        None
    }

    /// This process binds its device at `span` (and, if `chooses`, picks one of its own there).
    fn bind_device(&mut self, span: Span, chooses: bool) {
        self.proc().bound.get_or_insert(span);
        self.emit(Effect::DeviceBound {
            span,
            binding: Binding::Call,
            chooses,
        });
    }

    fn init_process_group(&mut self, span: Span, args: &Args<'m>) {
        let backend = match args.get(0, "backend") {
            None | Some((Value::None, _)) => Backend::Default,
            Some((Value::Str(s), _)) if s.to_ascii_lowercase().contains("nccl") => Backend::Nccl,
            Some((Value::Str(_), _)) => Backend::Cpu,
            Some(_) => Backend::Default,
        };
        let device_id = matches!(args.kw("device_id"), Some((v, _)) if !matches!(v, Value::None));
        // One process (`world_size=1`): GPU 0 is the right device, and no other rank shares it.
        if matches!(args.kw("world_size"), Some((Value::Int(1), _))) {
            return;
        }
        self.proc().per_worker = true;
        self.emit(Effect::ProcessGroupCreated {
            span,
            backend,
            device_given: device_id,
        });
    }

    /// Hugging Face, sentence-transformers, accelerate and vLLM loaders.
    fn call_huggingface(&mut self, span: Span, name: &str, args: &Args<'m>) -> Option<Value> {
        if name.ends_with(".from_pretrained")
            && huggingface::DEVICE_MAP_LOADERS
                .iter()
                .any(|p| name.starts_with(p))
        {
            return Some(match args.kw("device_map") {
                Some((Value::None, _)) | None => Value::Unknown,
                Some((v, e)) => match self.device_arg(v, e).or(match v {
                    Value::Str(s) if s == "auto" || s == "balanced" || s == "sequential" => {
                        Some(Device::Cuda(DeviceIndex::Current))
                    }
                    _ => Some(Device::Cuda(DeviceIndex::Current)),
                }) {
                    Some(Device::Cuda(index)) => self.new_cuda_object(
                        span,
                        index,
                        "`from_pretrained(device_map=...)` loads the model onto CUDA".into(),
                    ),
                    _ => Value::Unknown,
                },
            });
        }
        if name == huggingface::PIPELINE {
            let device = args
                .kw("device")
                .and_then(|(v, e)| match v {
                    Value::Int(i) if *i < 0 => Some(Device::Cpu),
                    _ => self.device_arg(v, e),
                })
                .or_else(|| {
                    args.kw("device_map")
                        .map(|_| Device::Cuda(DeviceIndex::Current))
                });
            return Some(match device {
                Some(Device::Cuda(index)) => self.new_cuda_object(
                    span,
                    index,
                    "`pipeline(device=...)` loads the model onto CUDA".into(),
                ),
                _ => Value::Unknown,
            });
        }
        if name == huggingface::SENTENCE_TRANSFORMER {
            return Some(
                match args.kw("device").map(|(v, e)| self.device_arg(v, e)) {
                    None => self.new_cuda_object(
                        span,
                        DeviceIndex::Current,
                        "`SentenceTransformer(...)` loads onto CUDA when it is available".into(),
                    ),
                    Some(Some(Device::Cuda(index))) => self.new_cuda_object(
                        span,
                        index,
                        "`SentenceTransformer(device=...)` loads onto CUDA".into(),
                    ),
                    Some(_) => Value::Unknown,
                },
            );
        }
        if huggingface::DEVICE_BINDING_CONSTRUCTORS.contains(&name) {
            // Under a launcher (a rank of a distributed job) these bind the rank's device.
            if self.proc_ref().per_worker {
                self.bind_device(span, false);
            }
            if name == huggingface::ACCELERATOR {
                return Some(self.alloc(Object::Accelerator));
            }
            return Some(Value::Unknown);
        }
        if huggingface::DATASET_SOURCES.contains(&name) {
            return Some(self.alloc(Object::HfDataset));
        }
        None
    }

    /// `Process`, `Pool`, `ProcessPoolExecutor`, `os.fork`, `torch.multiprocessing.spawn`...
    pub(super) fn call_process_api(
        &mut self,
        span: Span,
        name: &str,
        args: &Args<'m>,
        context: Option<(StartMethod, Span)>,
    ) -> Value {
        let Some(row) = processes::process_api(name) else {
            return passthrough(args);
        };
        match row.api {
            ProcessApi::Process => {
                let target = args
                    .get(usize::MAX, "target")
                    .map(|(v, _)| v.clone())
                    .unwrap_or_default();
                let values = match args.kw("args") {
                    Some((Value::Sequence(items), _)) => items.clone(),
                    _ => Vec::new(),
                };
                self.alloc(Object::Process {
                    target,
                    args: values,
                    start: context,
                    layer: row.layer,
                })
            }
            ProcessApi::Pool => self.pool(span, row.layer, args, context),
            ProcessApi::Executor => {
                let start = context.or_else(|| {
                    args.kw("mp_context").and_then(|(v, e)| match v {
                        Value::Context(_, m) => Some((*m, e.span)),
                        _ => None,
                    })
                });
                self.alloc(Object::Executor {
                    span,
                    start,
                    started_with: None,
                })
            }
            ProcessApi::OsFork => {
                self.fork_calls.insert(span);
                self.alloc(Object::ForkResult { span })
            }
            ProcessApi::TorchSpawn | ProcessApi::StartProcesses => {
                self.start_processes(span, row.api, args);
                Value::Unknown
            }
            ProcessApi::DaemonContext => Value::Qualified(name.to_string()),
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
            return Value::Cuda(CudaObject {
                global: None,
                ..obj.clone()
            });
        }
    }
    Value::Unknown
}
