//! GPU010's analysis for threads: the current CUDA device is per thread, and a thread's starts
//! unbound (device 0). A process that bound a device of its own (`set_device(local_rank)`) and
//! starts a thread that works on the current device without binding it there works on GPU 0.

use std::sync::Arc;

use gpulint_core::analysis::{Analysis, Context, ProcessEnd};
use gpulint_core::effect::{Binding, DeviceIndex, Effect};
use gpulint_core::source::Span;

#[derive(Clone, Debug, PartialEq)]
pub struct ThreadDeviceFact {
    /// The work on the thread's current device.
    pub span: Span,
    pub what: Arc<str>,
    /// Where the thread was started.
    pub thread: Span,
    /// Where the process bound its own device before starting it.
    pub binding: Span,
}

/// One running thread.
#[derive(Clone, Debug, PartialEq)]
struct Thread {
    start: Span,
    /// The process's own device when the thread started.
    process_binding: Option<Span>,
    /// The thread bound its current device (or ran code not analysed, which may have).
    bound: bool,
}

#[derive(Clone, Debug, Default)]
pub struct ThreadDevice {
    /// The process bound a device of its own here, outside any thread.
    binding: Option<Span>,
    /// The process narrowed its visible GPUs: device 0 is its GPU in every thread.
    narrowed: bool,
    /// The threads running, outermost first.
    threads: Vec<Thread>,
}

impl Analysis for ThreadDevice {
    type Facts = Vec<ThreadDeviceFact>;

    fn effect(&mut self, effect: &Effect, _: &Context, facts: &mut Self::Facts) {
        match effect {
            Effect::ThreadStarted { span } => self.threads.push(Thread {
                start: *span,
                process_binding: self.binding.filter(|_| !self.narrowed),
                bound: false,
            }),
            Effect::ThreadEnded { .. } => {
                self.threads.pop();
            }
            Effect::DeviceBound {
                span,
                binding,
                chooses,
            } => match self.threads.last_mut() {
                Some(thread) => thread.bound = true,
                None if *binding == Binding::Narrowed => self.narrowed = true,
                None => self.binding = chooses.then_some(*span),
            },
            Effect::NotFollowed { .. } => {
                if let Some(thread) = self.threads.last_mut() {
                    thread.bound = true;
                }
            }
            Effect::CurrentDeviceUsed { span, what } => self.used(*span, what, facts),
            Effect::CudaObjectCreated { object, what } if object.index == DeviceIndex::Current => {
                self.used(object.site, what, facts)
            }
            _ => {}
        }
    }

    fn join(&mut self, other: Self) {
        // The binding is the hazard's condition: a path that made it is a path with the hazard.
        self.binding = self.binding.or(other.binding);
        self.narrowed |= other.narrowed;
        for (mine, theirs) in self.threads.iter_mut().zip(other.threads) {
            mine.bound |= theirs.bound;
            mine.process_binding = mine.process_binding.or(theirs.process_binding);
        }
    }

    fn finish(self, _: &ProcessEnd, _: &mut Self::Facts) {}
}

impl ThreadDevice {
    fn used(&self, span: Span, what: &Arc<str>, facts: &mut Vec<ThreadDeviceFact>) {
        let Some(thread) = self.threads.last() else {
            return;
        };
        let Some(binding) = thread.process_binding.filter(|_| !thread.bound) else {
            return;
        };
        // One finding per thread: its first work on the current device; one binding fixes all.
        if !facts
            .iter()
            .any(|f| f.span == span || f.thread == thread.start)
        {
            facts.push(ThreadDeviceFact {
                span,
                what: what.clone(),
                thread: thread.start,
                binding,
            });
        }
    }
}

#[cfg(test)]
#[path = "thread_device_tests.rs"]
mod tests;
