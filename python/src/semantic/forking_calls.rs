//! Library calls that fork worker processes of their own, each described by its row
//! (`ForkingCall`): whether this call forks, how its workers start and what they run. A row whose
//! workers start at a method of the object it returns (`ForkAt::Methods`: a trainer's `fit`, a
//! parallel runner's call) makes an `Object::Forking` that keeps what its arguments decided.

use gpulint_core::analysis::Analysis;
use gpulint_core::effect::{Effect, Handed};

use super::calls::{passthrough, Args};
use super::children::{gpu_work, Entry};
use super::value::Value;
use super::{Interp, Object};
use crate::libraries::processes::launchers::{ForkAt, ForkingCall, Given, WorkersRun};
use crate::libraries::processes::{Layer, StartMethod};
use crate::source::Span;

impl<'m, A: Analysis> Interp<'m, A> {
    /// A call of a `ForksWorkers` row: workers forked now run the caller's code (or the
    /// library's); without workers, the caller's code runs here. A row that forks at a method
    /// returns the object whose methods do.
    pub(super) fn forking_call(
        &mut self,
        span: Span,
        call: &'static ForkingCall,
        args: &Args<'m>,
    ) -> Value {
        let workers = self.workers(call, args);
        let on_gpu = on_devices(call, args);
        match call.at {
            ForkAt::Call => self.fork_workers(span, call, (workers, on_gpu), args),
            ForkAt::Methods(_) => self.alloc(Object::Forking {
                call,
                workers,
                on_gpu,
            }),
        }
    }

    /// A call of `method` on `recv`: the workers of the `Object::Forking` it is, where the row
    /// names the method; `None` otherwise.
    pub(super) fn forking_method(
        &mut self,
        span: Span,
        recv: &Value,
        method: &str,
        args: &Args<'m>,
    ) -> Option<Value> {
        let Some(&Object::Forking {
            call,
            workers,
            on_gpu,
        }) = self.object(recv)
        else {
            return None;
        };
        let ForkAt::Methods(names) = call.at else {
            return None;
        };
        if !names.contains(&method) {
            return None;
        }
        Some(self.fork_workers(span, call, (workers, on_gpu), args))
    }

    /// Forks the row's workers (as the arguments decided: where the workers run, and for
    /// `OnDevices` workers whether they compute on the GPU), with the caller's code `args` gives.
    fn fork_workers(
        &mut self,
        span: Span,
        call: &'static ForkingCall,
        (workers, on_gpu): (Workers, bool),
        args: &Args<'m>,
    ) -> Value {
        let handed = match call.runs {
            WorkersRun::Callable(p) | WorkersRun::CallsItems(p) => Some((p, Handed::Task)),
            WorkersRun::ItemsOf(p) => Some((p, Handed::Dataset)),
            WorkersRun::Library { .. } | WorkersRun::OnDevices { .. } => None,
        };
        let code = handed.map(|(p, h)| (args.param(p).map(|(v, e)| (v.clone(), e.span)), h));
        let Some((entries, described)) = self.worker_entries(span, call, &code) else {
            return passthrough(args);
        };
        match workers {
            Workers::Forked => {}
            Workers::Here => {
                for (f, a) in entries {
                    self.call_plain(&f, a);
                }
                return passthrough(args);
            }
            Workers::Elsewhere => return passthrough(args),
        }
        let layer = call.layer.unwrap_or(Layer::Multiprocessing);
        let mut start = match call.layer {
            Some(layer) => self.resolve_start(layer, None),
            // A fork of its own, which obeys no `set_start_method`.
            None => self.own_fork(),
        };
        if let Some((Some((v, at)), h)) = code {
            self.hand_over(&[(v, at, h)], layer, (start.method, start.source));
        }
        match call.runs {
            WorkersRun::Library { package, what } => {
                start.prelude = self.library_in_child(span, package, what, start.method);
            }
            WorkersRun::OnDevices { what, .. } if on_gpu => {
                start.prelude =
                    forked_gpu_work(span, format!("{what} computes on its GPU"), start.method);
            }
            _ => {}
        }
        let parent = self.proc_ref().cuda.clone();
        self.run_child(span, &call.launcher, start, parent, entries, described);
        passthrough(args)
    }

    /// What each worker calls, and how messages name it; `None` when the caller's code the row
    /// needs is not among the arguments.
    fn worker_entries(
        &mut self,
        span: Span,
        call: &ForkingCall,
        code: &Option<(Option<(Value, Span)>, Handed)>,
    ) -> Option<(Vec<Entry>, String)> {
        Some(match (code, call.runs) {
            (Some((None, _)), _) => return None,
            (Some((Some((v, _)), _)), WorkersRun::Callable(_)) => {
                (vec![(v.clone(), vec![Value::Unknown])], self.describe(v))
            }
            // Each item is a call made ready: the worker runs it as it is.
            (Some((Some((v, _)), _)), WorkersRun::CallsItems(_)) => {
                let item = self.iterate_value(v, span);
                let described = self.describe(&item);
                (vec![(item, Vec::new())], described)
            }
            (Some((Some((v, _)), _)), _) => {
                (self.dataset_entries(v, &Value::None), self.describe(v))
            }
            (None, WorkersRun::Library { what, .. } | WorkersRun::OnDevices { what, .. }) => {
                (Vec::new(), what.to_string())
            }
            (None, _) => return None,
        })
    }

    /// What a forked worker running `package`'s code does first: compute on the GPU, where the
    /// parent put the package.
    fn library_in_child(
        &self,
        span: Span,
        package: &str,
        what: &str,
        method: StartMethod,
    ) -> Vec<Effect> {
        let on_gpu = self
            .proc_ref()
            .gpu_libraries
            .iter()
            .any(|p| &**p == package);
        if !on_gpu {
            return Vec::new();
        }
        let what = format!("{what} computes on the GPU, where the parent put `{package}`");
        forked_gpu_work(span, what, method)
    }

    /// Where the call's arguments put the workers.
    fn workers(&self, call: &ForkingCall, args: &Args<'m>) -> Workers {
        let several = match args.param(call.workers) {
            None => call.default > call.above,
            Some((Value::None, _)) => false,
            Some((Value::Int(n), _)) => *n > call.above || (call.negative_is_all && *n < 0),
            Some(_) => true,
        };
        let asked = match call.only_with {
            None => true,
            Some((p, Given::True)) => matches!(args.param(p), Some((Value::Bool(true), _))),
            Some((p, Given::Str(s))) => {
                matches!(args.param(p), Some((Value::Str(v), _)) if &**v == s)
            }
            Some((p, Given::OneOf(all))) => {
                matches!(args.param(p), Some((Value::Str(v), _)) if all.contains(&&**v))
            }
        };
        if !self.forks_in_version(call) {
            return Workers::Elsewhere;
        }
        match (several, asked) {
            (true, true) => Workers::Forked,
            (true, false) if !call.unasked_here => Workers::Elsewhere,
            _ => Workers::Here,
        }
    }
}

impl<A: Analysis> Interp<'_, A> {
    /// Whether the project's pins put the library in the versions where the call forks (a row
    /// without versions forks in all); an unknown version is not known to.
    fn forks_in_version(&self, call: &ForkingCall) -> bool {
        let Some(v) = call.versions else {
            return true;
        };
        let pins = &self.settings.requirements;
        pins.at_least(v.package, v.since) == Some(true)
            && pins.at_least(v.package, v.until) == Some(false)
    }
}

/// Where a forking call's workers run, as its arguments decide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Workers {
    /// Forked processes.
    Forked,
    /// This process (no workers, threads, or the call's own loop).
    Here,
    /// Not followed: processes that start clean (`ForkingCall::unasked_here`), or a version of
    /// the library not known to fork (`ForkingCall::versions`).
    Elsewhere,
}

/// Whether `OnDevices` workers compute on the GPU, as the call's arguments say: the accelerator
/// argument absent, or one of the row's values (an accelerator object, or a value not read, is
/// not known to be one).
fn on_devices(call: &ForkingCall, args: &Args<'_>) -> bool {
    match call.runs {
        WorkersRun::OnDevices {
            accelerator: Some((p, gpu)),
            ..
        } => match args.param(p) {
            None => true,
            Some((Value::Str(s), _)) => gpu.contains(&&**s),
            Some(_) => false,
        },
        WorkersRun::OnDevices {
            accelerator: None, ..
        } => true,
        _ => false,
    }
}

/// A forked worker's first GPU work (a spawned one starts clean, so its own is no hazard).
fn forked_gpu_work(span: Span, what: String, method: StartMethod) -> Vec<Effect> {
    match method {
        StartMethod::Fork => vec![gpu_work(span, what)],
        _ => Vec::new(),
    }
}

impl<'m, A: Analysis> Interp<'m, A> {
    /// A call of a `Behaviour::Defers` row: what its result's call makes ready.
    pub(super) fn defers(&mut self, args: &Args<'m>) -> Value {
        let func = args.values().into_iter().next().unwrap_or_default();
        self.alloc(Object::Deferred(func))
    }
}
