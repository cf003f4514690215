//! Library calls, methods and attributes: a name is looked up once in the tables of
//! `crate::libraries`, and the row's behaviour decides what happens. Nothing here names a library;
//! a new row of an existing kind needs no code.

use gpulint_core::analysis::Analysis;
use gpulint_core::effect::{Channel, CudaObject, DeviceIndex, Effect, Init};

use super::calls::{passthrough, Args};
use super::value::{Device, Value};
use super::{Interp, Object};
use crate::libraries::processes::{Carrier, Layer, StartMethod};
use crate::libraries::{
    self, AttributeBehaviour, Behaviour, Iteration, MethodBehaviour, Param, Receiver,
};
use crate::source::Span;

mod cuda;
mod data;
mod distributed;
mod env;
mod host_ops;
mod processes;
mod values;

impl<'m> Args<'m> {
    /// The argument a row's parameter names.
    pub fn param(&self, p: Param) -> Option<(&Value, &'m crate::model::Expr)> {
        self.get(p.index.unwrap_or(usize::MAX), p.name)
    }
}

/// The start method a string argument names.
fn start_method(arg: Option<(&Value, &crate::model::Expr)>) -> Option<StartMethod> {
    arg.and_then(|(v, _)| v.as_str().and_then(StartMethod::parse))
}

/// The last part of a qualified name, as messages quote it.
pub(super) fn short(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

impl<'m, A: Analysis> Interp<'m, A> {
    /// A call to a library function by qualified name.
    pub(super) fn call_library(&mut self, span: Span, name: &str, args: &Args<'m>) -> Value {
        let name = libraries::canonical(name);
        let applied = match libraries::lookup_canonical(name) {
            // `len(x)` is a number, not a value on the argument's device.
            Some((Behaviour::Inspects, _)) => return Value::Unknown,
            Some((does, reason)) => self.apply_row(span, name, does, reason, args),
            None => self.torch_function(span, name, args),
        };
        let made = applied.unwrap_or_else(|| self.unknown_call(args));
        self.current_device_call(span, name, args, &made);
        made
    }

    /// A call gpulint does not model: loaders handed to it are taken as iterated there, and a CUDA
    /// argument makes a CUDA result.
    fn unknown_call(&mut self, args: &Args<'m>) -> Value {
        let handed: Vec<(Value, Span)> = args
            .pos
            .iter()
            .map(|(v, e)| (v, *e))
            .chain(args.kw.iter().map(|(_, v, e)| (v, *e)))
            .filter(|(v, _)| matches!(self.object(v), Some(Object::Loader { .. })))
            .map(|(v, e)| (v.clone(), e.span))
            .collect();
        for (v, span) in handed {
            self.iterate_value(&v, span);
        }
        passthrough(args)
    }

    /// Acts on a row; `None` when the row does nothing for these arguments.
    fn apply_row(
        &mut self,
        span: Span,
        name: &str,
        does: Behaviour,
        reason: &str,
        args: &Args<'m>,
    ) -> Option<Value> {
        let short = short(name);
        Some(match does {
            Behaviour::Alias(_)
            | Behaviour::Inspects
            | Behaviour::Environ
            | Behaviour::Memoises
            | Behaviour::EntersAtYield
            | Behaviour::ForkedTask
            | Behaviour::HandlesRequests
            | Behaviour::NarrowsVisibility { .. } => return None,
            Behaviour::InitsCuda { .. } => self.inits_cuda(span, name, reason, does),
            // Called, it allocates a tensor on the current device.
            Behaviour::CudaTensorType => self.cuda_tensor_type(span, name, reason),
            Behaviour::BindsDevice { device } => self.binds_device(span, name, args, device),
            Behaviour::BindsDeviceUnderLauncher { init, owner } => {
                self.binds_device_under_launcher(span, name, reason, init, owner)
            }
            Behaviour::Factory { .. } => self.factory(span, name, does, args),
            Behaviour::ParallelEngine { .. } => {
                return self.parallel_engine(span, name, does, args);
            }
            Behaviour::Computes => self.computes(span, name, args),
            Behaviour::LimitsHostThreads { count } => self.limits_host_threads(span, args, count),
            // On the CPU, a layer computes on host tensors when called, as a tensor operation does.
            Behaviour::CreatesParameters if !self.default_cuda_set() => self.host_layer(name, args),
            Behaviour::CreatesParameters => self.creates_parameters(span, name),
            Behaviour::DeviceValue { kind, index } => self.device_value(args, kind, index),
            Behaviour::CudaDevice { index } => self.cuda_device(args, index),
            Behaviour::SetsDefaultDevice { device } => self.sets_default_device(span, args, device),
            Behaviour::SavesTensors { obj, file } => self.saves_tensors(span, args, obj, file),
            Behaviour::LoadsTensors { map_location, file } => {
                self.loads_tensors(span, name, args, map_location, file)
            }
            Behaviour::LoadsModel { .. } => self.load_model(span, name, does, args),
            Behaviour::LoadsOnProviders { providers, cuda } => {
                self.loads_on_providers(span, name, args, providers, cuda)
            }
            Behaviour::ReadsRank => self.reads_rank(),
            Behaviour::ReadsGlobalRank => self.reads_global_rank(name),
            Behaviour::ProcessGroup {
                backend,
                device_id,
                world_size,
            } => self.process_group(span, args, backend, device_id, world_size),
            Behaviour::Subgroup { backend } => self.subgroup(args, backend),
            Behaviour::Collective {
                device,
                group,
                tensors,
            } => self.collective(span, name, args, device, group, tensors),
            Behaviour::Returns(name) => Value::Qualified((*name).into()),
            // An object is not called; a call of it is a call of something unknown.
            Behaviour::Object => Value::Unknown,
            Behaviour::Answers(answer) => self.answers(span, answer),
            Behaviour::StartsChildren { api, layer } => {
                self.call_process_api(span, name, api, layer, args, None)
            }
            Behaviour::GetContext { layer, method } => self.get_context(args, layer, method),
            Behaviour::FixesStartMethod { .. } => {
                self.fixes_start_method(span, name, reason, does, args)
            }
            Behaviour::MakesCarrier(carrier) => self.carrier(Some(carrier)),
            Behaviour::Waits => self.waits(span),
            Behaviour::SetStartMethod {
                layer,
                method,
                force,
            } => self.sets_start_method(span, args, layer, method, force),
            Behaviour::RunsCommand { argv } => self.runs_command(span, args, argv),
            Behaviour::EndsProcess => self.ends_process(),
            Behaviour::Loader { .. } => self.dataloader(span, does, args),
            Behaviour::ForksWorkers(call) => self.forking_call(span, call, args),
            Behaviour::LibraryDataset { transforms } => self.library_dataset(args, transforms),
            Behaviour::ForkingDataset => self.alloc(Object::ForkingDataset),
            Behaviour::IndexesArguments => self.arguments_dataset(short, args),
            Behaviour::DictOfKeywords => return self.dict_of_keywords(args),
            Behaviour::Partial => self.partial(args),
            Behaviour::Defers => self.defers(args),
            Behaviour::Compose { steps } => self.compose(args, steps),
            Behaviour::ReadsEnv { key } => self.reads_env(args, key),
            Behaviour::WritesEnv { key, value } => self.writes_env(span, args, key, value),
            Behaviour::RemovesEnv { key } => self.removes_env(args, key),
            Behaviour::Converts { to_int } => self.converts(args, to_int),
            Behaviour::ToHost => Value::Unknown,
            Behaviour::Iterates(shape) => self.iterate_arguments(shape, args),
            Behaviour::Unpicklable => self.unpicklable(span, name),
            Behaviour::StartsThread { target, args: a } => {
                self.new_thread(span, name, args, target, a)
            }
            Behaviour::CallsArgument(param) => self.calls_argument(args, param),
        })
    }

    /// A model loader: onto the device its arguments name, else CUDA when `device_map` is given or
    /// the loader picks CUDA when it is available.
    fn load_model(&mut self, span: Span, name: &str, does: Behaviour, args: &Args<'m>) -> Value {
        let short = short(name);
        let Behaviour::LoadsModel {
            device,
            device_map,
            cuda_when_available,
            auto,
        } = does
        else {
            return Value::Unknown;
        };
        let named = device.and_then(|p| args.param(p)).map(|(v, e)| match v {
            Value::Int(i) if *i < 0 => Some(Device::Cpu),
            Value::Str(s) if auto == Some(&**s) => Some(Device::Cuda(DeviceIndex::Current)),
            _ => self.device_arg(v, e),
        });
        let target = match (named, device_map.and_then(|p| args.param(p))) {
            (Some(Some(d)), _) => Some(d),
            (_, Some((v, e))) if !matches!(v, Value::None) => Some(
                self.device_map_target(v, e)
                    .unwrap_or(Device::Cuda(DeviceIndex::Current)),
            ),
            (None, _) if cuda_when_available => Some(Device::Cuda(DeviceIndex::Current)),
            _ => None,
        };
        match target {
            Some(Device::Cuda(index)) => self.new_cuda_object(
                span,
                index,
                format!("`{short}(...)` loads the model onto CUDA"),
                libraries::sent_by_handle(name),
            ),
            _ => Value::Unknown,
        }
    }

    /// The device a `device_map` names: itself (`"cuda:1"`, `0`), or for a literal dict
    /// (`{"": gpu_id}`) its first entry's device, read from that entry's expression.
    fn device_map_target(&mut self, v: &Value, e: &crate::model::Expr) -> Option<Device> {
        if let (crate::model::ExprKind::Dict(items), Value::Mapping(entries)) = (&e.kind, v) {
            let (_, first) = items.first()?;
            let value = entries.first().map(|(_, v)| v).unwrap_or(&Value::Unknown);
            return self.device_arg(value, first);
        }
        self.device_arg(v, e)
    }

    /// `TensorDataset(x, y)`: a dataset holding the CUDA objects among its arguments (and those of
    /// such datasets among them), which a worker reads for every item.
    fn arguments_dataset(&mut self, short: &str, args: &Args<'m>) -> Value {
        let mut held = Vec::new();
        let given = args.pos.iter().map(|(v, e)| (v, *e));
        for (v, e) in given.chain(args.kw.iter().map(|(_, v, e)| (v, *e))) {
            match v {
                Value::Cuda(obj) => {
                    let name = e
                        .dotted()
                        .unwrap_or_else(|| format!("a tensor of `{short}`"));
                    held.push(((**obj).clone(), e.span, name));
                }
                _ => {
                    if let Some(Object::ArgumentsDataset { held: inner, .. }) = self.object(v) {
                        held.extend(inner.iter().cloned());
                    }
                }
            }
        }
        self.alloc(Object::ArgumentsDataset {
            name: short.to_string(),
            held,
        })
    }

    /// Whether a default-device argument names CUDA: a CUDA device, or a CUDA tensor type.
    fn names_cuda(&mut self, arg: Option<(&Value, &'m crate::model::Expr)>) -> bool {
        match arg {
            Some((Value::Qualified(q) | Value::Str(q), _))
                if matches!(libraries::lookup(q), Some((Behaviour::CudaTensorType, _))) =>
            {
                true
            }
            Some((Value::Qualified(_), _)) | None => false,
            Some((v, e)) => matches!(self.device_arg(v, e), Some(Device::Cuda(_))),
        }
    }

    /// `enumerate(xs)`, `zip(a, b)`, `list(xs)`...: iterates each argument (starting a loader's
    /// workers) and shapes the items.
    fn iterate_arguments(&mut self, shape: Iteration, args: &Args<'m>) -> Value {
        let mut out = Vec::new();
        for (v, e) in &args.pos {
            out.push(self.iterate_value(v, e.span));
        }
        match shape {
            Iteration::Enumerate => Value::seq(vec![Value::seq(vec![
                Value::Unknown,
                out.pop().unwrap_or_default(),
            ])]),
            Iteration::Zip => Value::seq(vec![Value::seq(out)]),
            Iteration::Items => Value::seq(out),
            Iteration::First => out.into_iter().next().unwrap_or_default(),
        }
    }

    /// `set_start_method(m)` for `layer`, from here on in this process.
    fn set_start_method(&mut self, span: Span, layer: Layer, method: StartMethod, force: bool) {
        let previous = self.resolve_start(layer, None).method;
        std::sync::Arc::make_mut(&mut self.proc().start_methods)
            .insert(super::process::layer_key(layer), (method, span));
        let at_module_scope = self.frames.is_empty();
        let during_reimport = self.proc_ref().reimport;
        self.emit(Effect::StartMethodSet {
            span,
            context: u32::from(super::process::layer_key(layer)),
            method,
            previous,
            at_module_scope,
            force,
            during_reimport,
            caught: self.control.try_depth > 0,
            only_if_unset: self.control.unset_guard_depth > 0,
            repeated: self.control.repeats(),
        });
    }

    /// Methods whose meaning comes from the receiver's kind; `None` falls back to calling `callee`.
    pub(super) fn call_method(
        &mut self,
        span: Span,
        recv: &Value,
        method: &str,
        callee: &Value,
        args: &Args<'m>,
    ) -> Option<Value> {
        // A library method row never stands for the project's own code: `dist.initialize()` on a
        // project module calls the project's function, whatever a library names its methods.
        if matches!(recv, Value::Qualified(_) | Value::Module(_))
            || matches!(
                callee,
                Value::BoundMethod(..) | Value::Function(..) | Value::Class(_)
            )
        {
            return None;
        }
        // `ctx.Process(...)`: the context's module's name, with the context's start method.
        if let Value::Context(layer, start) = recv {
            let name = format!("{}.{method}", layer.module());
            return Some(match libraries::lookup(&name) {
                Some((Behaviour::StartsChildren { api, layer }, _)) => {
                    self.call_process_api(span, &name, api, layer, args, Some((*start, span)))
                }
                // The context's own queue or manager: it fixes no default context.
                Some((Behaviour::FixesStartMethod { makes, .. }, _)) => self.carrier(makes),
                Some((Behaviour::MakesCarrier(carrier), _)) => self.carrier(Some(carrier)),
                _ => passthrough(args),
            });
        }
        if let Some(v) = self.forking_method(span, recv, method, args) {
            return Some(v);
        }
        let object = self.object(recv).cloned();
        let process = match &object {
            Some(Object::Instance { class, .. }) => self.process_base(*class).is_some(),
            Some(Object::Process { .. }) => true,
            _ => false,
        };
        let does = libraries::method(method, |on, does| match on {
            Receiver::Any => true,
            // `None` is a lazily filled global's first value (`_ACCELERATOR = None`, filled by
            // `get_accelerator()`): a method call on it cannot run, so the value is one not seen.
            Receiver::Opaque => matches!(recv, Value::Unknown | Value::None),
            Receiver::CudaObject => matches!(recv, Value::Cuda(_)),
            Receiver::Process => process,
            Receiver::Pool => matches!(object, Some(Object::Pool { .. })),
            Receiver::Executor => matches!(object, Some(Object::Executor { .. })),
            Receiver::DeviceOwner => matches!(object, Some(Object::DeviceOwner)),
            Receiver::Channel => matches!(object, Some(Object::Channel(_))),
            Receiver::Manager => matches!(object, Some(Object::Manager)),
            Receiver::Thread => self.is_thread(object.as_ref()),
            Receiver::Dataset => {
                matches!(object, Some(Object::ForkingDataset))
                    || matches!(does, MethodBehaviour::MapsDataset { num_proc, .. }
                        if args.param(num_proc).is_some())
            }
        });
        if let Some(does) = does {
            if let Some(v) = self.apply_method(span, recv, method, does, args) {
                return Some(v);
            }
        } else if let Some(v) = self.tensor_method(span, recv, method, args) {
            return Some(v);
        }
        match recv {
            Value::Cuda(obj) => Some(Value::cuda(obj.derived())),
            _ if matches!(callee, Value::Unknown) => Some(passthrough(args)),
            _ => None,
        }
    }

    fn apply_method(
        &mut self,
        span: Span,
        recv: &Value,
        method: &str,
        does: MethodBehaviour,
        args: &Args<'m>,
    ) -> Option<Value> {
        Some(match does {
            MethodBehaviour::BindsDevice { device } => {
                let index = args
                    .param(device)
                    .and_then(|(v, e)| self.device_arg(v, e))
                    .and_then(Device::cuda_index);
                let own = matches!(index, Some(DeviceIndex::PerWorker | DeviceIndex::Inherited));
                self.bind_device(span, own);
                Value::Unknown
            }
            MethodBehaviour::StartsProcess => return self.start_process(span, recv),
            MethodBehaviour::StartsThread => return self.start_thread(span, recv),
            MethodBehaviour::RunsInWorkers(call) => return self.run_in_workers(recv, call, args),
            MethodBehaviour::MovesArgumentsToDevice => self.moves_arguments_to_device(method, args),
            MethodBehaviour::MovesToCuda { device } => {
                self.moves_to_cuda(span, recv, method, device, args)
            }
            MethodBehaviour::MovesTo { device } => self.moves_to(span, recv, method, device, args),
            // A context handle, not a tensor: it cannot be sent to another process.
            MethodBehaviour::CreatesContext => self.new_cuda_object(
                span,
                DeviceIndex::Current,
                format!("`{method}()` creates a CUDA context"),
                false,
            ),
            MethodBehaviour::InitsCuda { level } => {
                let what = match level {
                    Init::Context => "creates a CUDA context",
                    Init::Driver | Init::None => "initialises the CUDA driver",
                };
                self.cuda_event(span, level, format!("`.{method}()` {what}"), true);
                match recv {
                    Value::Cuda(obj) => Value::cuda(obj.derived()),
                    _ => Value::Unknown,
                }
            }
            MethodBehaviour::PinsHostMemory => {
                let what =
                    format!("`.{method}()` creates a CUDA context (the CUDA host allocator)");
                self.cuda_event(span, Init::Context, what, true);
                self.current_device_used(
                    span,
                    format!("`.{method}()` pins through the current device"),
                );
                match recv {
                    Value::Cuda(obj) => Value::cuda(obj.derived()),
                    _ => Value::HostTensor {
                        pinned: Some(Box::new(span)),
                        numel: 0,
                        layer: false,
                    },
                }
            }
            MethodBehaviour::LoadsState => return self.loads_state(span, recv, method),
            MethodBehaviour::Parameters => match recv {
                Value::Cuda(obj) => Value::cuda(obj.derived()),
                _ => self.host_parameters(recv),
            },
            MethodBehaviour::State => match recv {
                Value::Cuda(obj) => Value::cuda(obj.derived()),
                Value::HostTensor { .. } => Value::host(),
                _ => Value::Unknown,
            },
            // What `.cpu()` gives back lives in host memory whatever it was called on: a tensor
            // not followed (`p.to_local().cpu()`) as well as one that is.
            MethodBehaviour::ToCpu | MethodBehaviour::MovesToCpu => match recv {
                Value::Cuda(_) | Value::HostTensor { .. } | Value::Unknown => Value::host(),
                _ => Value::Unknown,
            },
            MethodBehaviour::Metadata => Value::Unknown,
            MethodBehaviour::MapsDataset { .. } => self.dataset_map(span, recv, does, args),
            MethodBehaviour::ForksWorkers(call) => self.forking_call(span, call, args),
            MethodBehaviour::Sends => self.sends(span, recv, method, args),
            MethodBehaviour::Waits => {
                self.emit(Effect::WaitedForOthers { span });
                Value::Unknown
            }
            MethodBehaviour::MakesProxy => self.alloc(Object::Channel(Channel::ManagerProxy)),
        })
    }

    /// A method that moves each positional argument to the worker's device.
    fn moves_arguments_to_device(&mut self, method: &str, args: &Args<'m>) -> Value {
        let mut out = Vec::new();
        for (v, e) in &args.pos {
            let by_handle = moved_by_handle(v);
            out.push(self.new_cuda_object(
                e.span,
                DeviceIndex::PerWorker,
                format!("`{method}` moves it to CUDA"),
                by_handle,
            ));
        }
        if out.len() == 1 {
            out.remove(0)
        } else {
            Value::seq(out)
        }
    }

    /// `.cuda([device])`: the receiver on a CUDA device.
    fn moves_to_cuda(
        &mut self,
        span: Span,
        recv: &Value,
        method: &str,
        device: Param,
        args: &Args<'m>,
    ) -> Value {
        let index = match args.param(device) {
            None => DeviceIndex::Current,
            Some((v, e)) => self
                .device_arg(v, e)
                .and_then(Device::cuda_index)
                .unwrap_or(DeviceIndex::PerWorker),
        };
        self.new_cuda_object(
            span,
            index,
            format!("`.{method}()` creates a CUDA context"),
            moved_by_handle(recv),
        )
    }

    /// `.to(device)`: on a CUDA device, a CUDA object; elsewhere, unknown.
    fn moves_to(
        &mut self,
        span: Span,
        recv: &Value,
        method: &str,
        device: Param,
        args: &Args<'m>,
    ) -> Value {
        match args.param(device).and_then(|(v, e)| self.device_arg(v, e)) {
            Some(Device::Cuda(index)) => self.new_cuda_object(
                span,
                index,
                format!("`.{method}(...)` a CUDA device creates a CUDA context"),
                moved_by_handle(recv),
            ),
            Some(_) => Value::Unknown,
            None => match recv {
                Value::Cuda(obj) => Value::cuda(obj.derived()),
                _ => Value::Unknown,
            },
        }
    }

    /// A channel's send: what is put in it goes to another process.
    fn sends(&mut self, span: Span, recv: &Value, method: &str, args: &Args<'m>) -> Value {
        if let Some(Object::Channel(channel)) = self.object(recv) {
            let channel = *channel;
            let values: Vec<Value> = args
                .pos
                .iter()
                .map(|(v, _)| v.clone())
                .chain(args.kw.iter().map(|(_, v, _)| v.clone()))
                .collect();
            self.send_values(span, channel, &values, &format!("`{method}`"));
        }
        Value::None
    }

    /// A queue, a pipe (its two connections) or a manager, as `carrier` says; else an unknown value.
    fn carrier(&mut self, carrier: Option<Carrier>) -> Value {
        match carrier {
            None => Value::Unknown,
            Some(Carrier::Queue) => self.alloc(Object::Channel(Channel::Queue)),
            Some(Carrier::Pipe) => {
                let ends = vec![
                    self.alloc(Object::Channel(Channel::Queue)),
                    self.alloc(Object::Channel(Channel::Queue)),
                ];
                Value::seq(ends)
            }
            Some(Carrier::Manager) => self.alloc(Object::Manager),
        }
    }

    /// `values` are pickled to another process through `channel` at `span`: the first CUDA object
    /// among them (or in the tuples, lists and dicts they are) is reported.
    pub(super) fn send_values(
        &mut self,
        span: Span,
        channel: Channel,
        values: &[Value],
        what: &str,
    ) {
        let Some(object) = values.iter().find_map(|v| cuda_inside(v, 2)).cloned() else {
            return;
        };
        self.emit(Effect::CudaObjectSent {
            object,
            span,
            channel,
            what: what.into(),
        });
    }

    /// `owner.attr` for library receivers: `None` when no row says.
    pub(super) fn library_attribute(&self, owner: &Value, attr: &str) -> Option<Value> {
        match owner {
            Value::Object(_) if matches!(self.object(owner), Some(Object::DeviceOwner)) => {
                match libraries::attribute(attr, Receiver::DeviceOwner)? {
                    AttributeBehaviour::Device => {
                        Some(Value::Device(Device::Cuda(DeviceIndex::PerWorker)))
                    }
                    AttributeBehaviour::Metadata => Some(Value::Unknown),
                    AttributeBehaviour::RankInJob => Some(Value::GlobalRank(None)),
                    AttributeBehaviour::RankOnNode => Some(Value::Rank),
                }
            }
            // An object gpulint cannot see into: its device is wherever it already lives.
            Value::Unknown | Value::None => match libraries::attribute(attr, Receiver::Opaque)? {
                AttributeBehaviour::Device => {
                    Some(Value::Device(Device::Cuda(DeviceIndex::Inherited)))
                }
                _ => None,
            },
            Value::Cuda(obj) => Some(match libraries::attribute(attr, Receiver::CudaObject) {
                Some(AttributeBehaviour::Device) => Value::Device(Device::Cuda(obj.index)),
                Some(_) => Value::Unknown,
                None if attr.starts_with("__") => Value::Unknown,
                None => Value::cuda(obj.derived()),
            }),
            _ => None,
        }
    }
}

/// A CUDA object `value` is, or holds in its items (`depth` levels of tuples, lists and dicts).
fn cuda_inside(value: &Value, depth: u32) -> Option<&CudaObject> {
    match value {
        Value::Cuda(obj) => Some(obj),
        _ if depth == 0 => None,
        Value::Sequence(items) => items.iter().find_map(|v| cuda_inside(v, depth - 1)),
        Value::Mapping(entries) => entries.iter().find_map(|(_, v)| cuda_inside(v, depth - 1)),
        _ => None,
    }
}

/// Whether what a method moves to CUDA travels between processes by handle: the receiver's kind
/// when it is a known CUDA object, else PyTorch's (the methods that move values to CUDA are
/// `.cuda()`, `.to(...)` and a launcher's `prepare`; MXNet's copies are not told apart).
fn moved_by_handle(recv: &Value) -> bool {
    match recv {
        Value::Cuda(obj) => obj.by_handle,
        _ => true,
    }
}

/// How the code names a checkpoint's file, to pair a load with a save of the same file: a string,
/// or the name (`path`, `self.path`) that holds it.
fn file_key(v: &Value, e: &crate::model::Expr) -> Option<std::sync::Arc<str>> {
    match v {
        Value::Str(s) => Some(format!("{s:?}").into()),
        _ => e.dotted().map(Into::into),
    }
}

/// Whether `v` is known to hold no CUDA object: host tensors, numbers, strings, and lists or dicts
/// of them (`depth` levels down).
fn host_only(v: &Value, depth: u32) -> bool {
    match v {
        Value::HostTensor { .. } | Value::Int(_) | Value::Str(_) | Value::Bool(_) | Value::None => {
            true
        }
        Value::Sequence(items) if depth > 0 => items.iter().all(|i| host_only(i, depth - 1)),
        Value::Mapping(entries) if depth > 0 => {
            entries.iter().all(|(_, v)| host_only(v, depth - 1))
        }
        _ => false,
    }
}
