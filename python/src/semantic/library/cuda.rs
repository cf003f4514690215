//! Library rows that touch CUDA: initialising it, binding a device, allocating tensors and models
//! on a device, saving and loading them.

use gpulint_core::analysis::Analysis;
use gpulint_core::effect::{DeviceIndex, Effect, Init};

use super::super::calls::{passthrough, Args};
use super::super::value::{Device, Value};
use super::super::{Interp, Object};
use super::*;
use crate::libraries::{self, Behaviour, Param};
use crate::source::Span;

impl<'m, A: Analysis> Interp<'m, A> {
    /// A call of a `Behaviour::InitsCuda` row.
    pub(super) fn inits_cuda(
        &mut self,
        span: Span,
        name: &str,
        reason: &str,
        does: Behaviour,
    ) -> Value {
        let short = short(name);
        let Behaviour::InitsCuda {
            level,
            object,
            safe_in_child,
            unless_env,
        } = does
        else {
            return Value::Unknown;
        };
        let level = match unless_env {
            Some((key, value)) if self.env_var(key).is_some_and(|v| v == value) => Init::None,
            _ => level,
        };
        let what = format!("`{short}` {reason}");
        if level != Init::None {
            self.library_on_gpu(name);
        }
        if level == Init::Context && object {
            return self.new_cuda_object(
                span,
                DeviceIndex::Current,
                what,
                libraries::sent_by_handle(name),
            );
        }
        let fails = level == Init::Context || (level == Init::Driver && !safe_in_child);
        self.cuda_event(span, level, what, fails);
        Value::Unknown
    }

    /// Notes that the package of the row `name` put itself on the GPU in this process.
    fn library_on_gpu(&mut self, name: &str) {
        let package = crate::libraries::first_name(name);
        let known = &self.proc_ref().gpu_libraries;
        if !known.iter().any(|p| &**p == package) {
            std::sync::Arc::make_mut(&mut self.proc().gpu_libraries).push(package.into());
        }
    }

    /// A call of a `Behaviour::CudaTensorType` row.
    pub(super) fn cuda_tensor_type(&mut self, span: Span, name: &str, reason: &str) -> Value {
        let short = short(name);
        self.new_cuda_object(
            span,
            DeviceIndex::Current,
            format!("`{short}` {reason}"),
            libraries::sent_by_handle(name),
        )
    }

    /// A call of a `Behaviour::BindsDevice` row.
    pub(super) fn binds_device(
        &mut self,
        span: Span,
        name: &str,
        args: &Args<'m>,
        device: Param,
    ) -> Value {
        let short = short(name);
        let arg = args.param(device);
        let index = arg
            .and_then(|(v, e)| self.device_arg(v, e))
            .and_then(Device::cuda_index);
        self.cuda_event(
            span,
            Init::Context,
            format!("`{short}` creates a context on the device"),
            true,
        );
        // Binding to a device taken from elsewhere still makes it this process's own.
        let chooses = matches!(index, Some(DeviceIndex::PerWorker | DeviceIndex::Inherited))
            || index.is_none() && arg.is_some();
        self.bind_device(span, chooses);
        Value::Unknown
    }

    /// A call of a `Behaviour::BindsDeviceUnderLauncher` row.
    pub(super) fn binds_device_under_launcher(
        &mut self,
        span: Span,
        name: &str,
        reason: &str,
        init: Init,
        owner: bool,
    ) -> Value {
        let short = short(name);
        self.cuda_event(span, init, format!("`{short}()` {reason}"), true);
        if self.proc_ref().per_worker {
            self.bind_device(span, false);
        } else {
            // Not known to be a rank yet: a process group created later says it is.
            self.proc().launcher_binding.get_or_insert(span);
        }
        if owner {
            self.alloc(Object::DeviceOwner)
        } else {
            Value::Unknown
        }
    }

    /// A call of a `Behaviour::Factory` row.
    pub(super) fn factory(
        &mut self,
        span: Span,
        name: &str,
        does: Behaviour,
        args: &Args<'m>,
    ) -> Value {
        let short = short(name);
        let Behaviour::Factory {
            device,
            pin_memory,
            default_device,
            host_tensor,
            size,
        } = does
        else {
            return Value::Unknown;
        };
        let pinned = pin_memory.filter(|p| matches!(args.param(*p), Some((Value::Bool(true), _))));
        if let Some(p) = pinned {
            let what = format!(
                "`{short}({}=True)` pins host memory through the CUDA host allocator, \
                 which creates a context",
                p.name
            );
            self.cuda_event(span, Init::Context, what, true);
            let what = format!("`{short}({}=True)` pins through the current device", p.name);
            self.current_device_used(span, what);
        }
        let numel = super::host_ops::factory_numel(args, size);
        let host = || match host_tensor {
            true => Value::HostTensor {
                pinned: pinned.map(|_| Box::new(span)),
                numel,
                layer: false,
            },
            false => Value::Unknown,
        };
        let made = match args.param(device).and_then(|(v, e)| self.device_arg(v, e)) {
            Some(Device::Cuda(index)) => self.new_cuda_object(
                span,
                index,
                format!("`{short}({}=...)` allocates on CUDA", device.name),
                libraries::sent_by_handle(name),
            ),
            Some(Device::Cpu) => host(),
            Some(_) => Value::Unknown,
            None if default_device && self.default_cuda_set() => self.new_cuda_object(
                span,
                DeviceIndex::Current,
                format!("`{short}` allocates on CUDA, the default device"),
                libraries::sent_by_handle(name),
            ),
            None => match passthrough(args) {
                Value::Cuda(obj) => Value::Cuda(obj),
                _ => host(),
            },
        };
        if let Value::HostTensor { .. } = made {
            self.host_factory(span, name, numel);
        }
        made
    }

    /// A call of a `Behaviour::ParallelEngine` row.
    pub(super) fn parallel_engine(
        &mut self,
        span: Span,
        name: &str,
        does: Behaviour,
        args: &Args<'m>,
    ) -> Option<Value> {
        if self.engine_workers(span, does, args) {
            // The engine's context is in its own process: the caller holds a client.
            return Some(Value::Unknown);
        }
        let reason = "builds a CUDA engine in this process";
        self.apply_row(span, name, libraries::CREATES_OBJECT, reason, args)
    }

    /// A call of a `Behaviour::Computes` row.
    pub(super) fn computes(&mut self, span: Span, name: &str, args: &Args<'m>) -> Value {
        let short = short(name);
        let operands: Vec<Value> = args.pos.iter().map(|(v, _)| v.clone()).collect();
        let op = format!("`{short}`");
        self.host_compute(span, &op, &operands)
            .unwrap_or_else(|| passthrough(args))
    }

    /// A call of a `Behaviour::LimitsHostThreads` row.
    pub(super) fn limits_host_threads(
        &mut self,
        span: Span,
        args: &Args<'m>,
        count: Param,
    ) -> Value {
        if let Some((Value::Int(1), _)) = args.param(count) {
            self.emit(Effect::HostThreadsLimited { span });
        }
        Value::None
    }

    /// A call of a `Behaviour::CreatesParameters` row.
    pub(super) fn creates_parameters(&mut self, span: Span, name: &str) -> Value {
        let short = short(name);
        self.new_cuda_object(
            span,
            DeviceIndex::Current,
            format!("`{short}` creates its parameters on CUDA, the default device"),
            libraries::sent_by_handle(name),
        )
    }

    /// A call of a `Behaviour::DeviceValue` row.
    pub(super) fn device_value(&mut self, args: &Args<'m>, kind: Param, index: Param) -> Value {
        let device = match (args.param(kind), args.param(index)) {
            (Some((Value::Str(kind), _)), Some((index, e))) if &**kind == "cuda" => {
                Some(Device::Cuda(self.ordinal_arg(index, e)))
            }
            (Some((v, e)), None) => self.device_arg(v, e),
            _ => None,
        };
        device.map_or(Value::Unknown, Value::Device)
    }

    /// A call of a `Behaviour::CudaDevice` row.
    pub(super) fn cuda_device(&mut self, args: &Args<'m>, index: Param) -> Value {
        Value::Device(Device::Cuda(match args.param(index) {
            None => DeviceIndex::Fixed(0),
            Some((v, e)) => self.ordinal_arg(v, e),
        }))
    }

    /// A call of a `Behaviour::SetsDefaultDevice` row.
    pub(super) fn sets_default_device(
        &mut self,
        span: Span,
        args: &Args<'m>,
        device: Param,
    ) -> Value {
        if self.names_cuda(args.param(device)) {
            self.proc().default_cuda.get_or_insert(span);
        }
        Value::None
    }

    /// A call of a `Behaviour::SavesTensors` row.
    pub(super) fn saves_tensors(
        &mut self,
        span: Span,
        args: &Args<'m>,
        obj: Param,
        file: Param,
    ) -> Value {
        let file = args.param(file).and_then(|(v, e)| file_key(v, e));
        if let (Some(file), Some((v, _))) = (file, args.param(obj)) {
            let host_only = host_only(v, 3);
            self.emit(Effect::CheckpointSaved {
                span,
                file,
                host_only,
            });
        }
        Value::None
    }

    /// A call of a `Behaviour::LoadsTensors` row.
    pub(super) fn loads_tensors(
        &mut self,
        span: Span,
        name: &str,
        args: &Args<'m>,
        map_location: Param,
        file: Param,
    ) -> Value {
        match args.param(map_location) {
            // The device is whatever the checkpoint was saved from, which the code does not
            // say: often the CPU (shards written by the same program), often cuda:0. Only a
            // load that surely passes no mapping is unmapped: not a `**kwargs` or `*args`
            // that may carry one, nor a parameter that defaults to `None`.
            None | Some((Value::None, _)) => {
                let surely = match args.param(map_location) {
                    None => !args.opaque_kwargs && !args.starred,
                    Some((_, e)) => matches!(e.kind, crate::model::ExprKind::NoneLiteral),
                };
                if surely {
                    let file = args.param(file).and_then(|(v, e)| file_key(v, e));
                    self.emit(Effect::UnmappedLoad {
                        span,
                        what: name.into(),
                        file,
                        none_given: args.param(map_location).map(|(_, e)| e.span),
                    });
                }
                Value::Unknown
            }
            Some((v, e)) => match self.device_arg(v, e) {
                Some(Device::Cuda(index)) => self.new_cuda_object(
                    span,
                    index,
                    format!("`{name}` maps the tensors to CUDA"),
                    libraries::sent_by_handle(name),
                ),
                _ => Value::Unknown,
            },
        }
    }

    /// A call of a `Behaviour::LoadsOnProviders` row.
    pub(super) fn loads_on_providers(
        &mut self,
        span: Span,
        name: &str,
        args: &Args<'m>,
        providers: Param,
        cuda: &'static [&'static str],
    ) -> Value {
        let short = short(name);
        let named = |v: &Value| {
            let name = match v {
                Value::Sequence(pair) => pair.first().cloned().unwrap_or_default(),
                other => other.clone(),
            };
            name.as_str().is_some_and(|n| cuda.contains(&n))
        };
        match args.param(providers) {
            Some((Value::Sequence(items), _)) if items.iter().any(named) => self.new_cuda_object(
                span,
                DeviceIndex::Current,
                format!("`{short}(providers=...)` loads the model onto CUDA"),
                libraries::sent_by_handle(name),
            ),
            _ => Value::Unknown,
        }
    }
}
