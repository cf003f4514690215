//! Threads: `threading.Thread(target=f).start()` and a subclass's `run` run here, in this process,
//! between `ThreadStarted` and `ThreadEnded`. A thread shares the process (memory, CUDA's
//! initialisation, the environment) but not its current CUDA device, which the analyses track.

use gpulint_core::analysis::Analysis;
use gpulint_core::effect::Effect;

use super::calls::Args;
use super::value::Value;
use super::{Interp, Object};
use crate::libraries::per_thread::{self, Work};
use crate::libraries::processes::RUN_METHOD;
use crate::libraries::{self, Param};
use crate::source::Span;

impl<'m, A: Analysis> Interp<'m, A> {
    /// A call of a `Behaviour::StartsThread` row: the thread, not started yet.
    pub(super) fn new_thread(
        &mut self,
        span: Span,
        name: &str,
        args: &Args<'m>,
        target: Param,
        params: Param,
    ) -> Value {
        let target = args
            .param(target)
            .map(|(v, _)| v.clone())
            .unwrap_or_default();
        let values = match args.param(params) {
            Some((Value::Sequence(items), _)) => items.to_vec(),
            _ => Vec::new(),
        };
        self.alloc(Object::Thread {
            span,
            what: format!("`{name}()`"),
            target,
            args: values,
        })
    }

    /// Whether `object` is a thread: made by a `StartsThread` row, or an instance of a subclass.
    pub(super) fn is_thread(&self, object: Option<&Object>) -> bool {
        match object {
            Some(Object::Thread { .. }) => true,
            Some(Object::Instance { class, .. }) => self.thread_base(*class),
            _ => false,
        }
    }

    fn thread_base(&self, class: super::ClassId) -> bool {
        self.find_in_classes(class, |c| {
            let bases = self.world.class_bases().get(&c)?;
            bases
                .iter()
                .any(|b| matches!(b, Value::Qualified(q) if libraries::is_thread_class(q)))
                .then_some(())
        })
        .is_some()
    }

    /// `thread.start()`: the thread's code runs now, inline, with the same budgets.
    pub(super) fn start_thread(&mut self, span: Span, recv: &Value) -> Option<Value> {
        let Value::Object(id) = recv.primary() else {
            return None;
        };
        let (code, values) = match self.world.object(*id)?.clone() {
            Object::Thread { target, args, .. } => (target, args),
            Object::Instance { class, .. } => {
                let run = self.find_method(class, RUN_METHOD)?;
                (Value::bound_method(run, recv.clone()), Vec::new())
            }
            _ => return None,
        };
        self.emit(Effect::ThreadStarted { span });
        self.call_plain(&code, values);
        self.emit(Effect::ThreadEnded { span });
        Some(Value::None)
    }

    /// A library call that works on the current device (`per_thread` rows), after the row of its
    /// name made `made`.
    pub(super) fn current_device_call(
        &mut self,
        span: Span,
        name: &str,
        args: &Args<'m>,
        made: &Value,
    ) {
        let Some(row) = per_thread::lookup(name) else {
            return;
        };
        let short = super::library::short(name);
        match row.work {
            Work::Call { device } => {
                let named = device.and_then(|p| args.param(p));
                if named.is_some_and(|(v, _)| !matches!(v, Value::None)) {
                    return;
                }
                let what = format!("`{short}()` works on the current device");
                self.current_device_used(span, what);
            }
            Work::PinsWhenIterated { flag } => {
                let on = matches!(args.param(flag), Some((Value::Bool(true), _)));
                if let (true, Value::Object(id)) = (on, made) {
                    if let Some(Object::Loader { pins, .. }) = self.world.object_mut(*id) {
                        *pins = Some(span);
                    }
                }
            }
        }
    }

    /// Iterating a loader that pins its batches: through the current device.
    pub(super) fn iterate_pinning_loader(&mut self, span: Span, pins: Option<Span>) {
        if pins.is_some() {
            let what = "iterating a `DataLoader(pin_memory=True)` pins through the current device";
            self.current_device_used(span, what.into());
        }
    }

    /// CUDA work here runs on the calling thread's current device.
    pub(in crate::semantic) fn current_device_used(&mut self, span: Span, what: String) {
        self.emit(Effect::CurrentDeviceUsed {
            span,
            what: what.into(),
        });
    }
}
