//! GPU011's analysis: CUDA objects sent to another process as CUDA IPC handles where the receiver
//! cannot use them. Through a manager's proxy, the manager process receives the tensor and cannot
//! pickle it again for the reader. From a child process that ends after sending without waiting
//! for anyone, the handle names memory freed with the sender before the receiver opens it.

use std::sync::Arc;

use gpulint_core::analysis::{Analysis, Context, ProcessEnd};
use gpulint_core::effect::{Channel, CudaObject, Effect};
use gpulint_core::source::Span;

/// Why a CUDA object sent to another process cannot be used there.
#[derive(Clone, Debug, PartialEq)]
pub enum SendHazard {
    /// It went through a manager's proxy.
    ThroughManager,
    /// The child process that sent it, started at `child` to run `code`, ends without waiting for
    /// any other process after sending.
    SenderEnds { child: Span, code: Option<Arc<str>> },
}

/// A CUDA object sent to another process by handle, and why the receiver cannot use it.
#[derive(Clone, Debug, PartialEq)]
pub struct SentFact {
    /// The call (or assignment) that sends it.
    pub span: Span,
    /// Where the object was created or moved to CUDA.
    pub object: Span,
    /// The sending call, for messages ("`put`").
    pub what: Arc<str>,
    pub hazard: SendHazard,
}

/// The first send through a queue or pipe in this process.
#[derive(Clone, Debug)]
struct Sent {
    span: Span,
    object: Span,
    what: Arc<str>,
    code: Option<Arc<str>>,
}

/// What one process sent, to whom it could still matter, and whether it waited afterwards.
#[derive(Clone, Debug, Default)]
pub struct CudaAcrossProcesses {
    /// This process is a child that ends when the code it was started for returns (a `Process`, a
    /// `spawn`ed rank; not a pool's or loader's worker, which waits for more work): its start.
    ends_with_code: Option<Span>,
    /// The code the child runs now.
    running: Option<Arc<str>>,
    /// Boxed: process states are copied at every branch, and most never send.
    sent: Option<Box<Sent>>,
    /// The process waited for another one after it sent (on some path).
    waited: bool,
}

fn push(facts: &mut Vec<SentFact>, fact: SentFact) {
    if !facts
        .iter()
        .any(|f| f.span == fact.span && f.hazard == fact.hazard)
    {
        facts.push(fact);
    }
}

impl CudaAcrossProcesses {
    fn sent(
        &mut self,
        object: &CudaObject,
        span: Span,
        channel: Channel,
        what: &Arc<str>,
        facts: &mut Vec<SentFact>,
    ) {
        // A host copy (CuPy, JAX) or an object that cannot be pickled at all is not GPU011's.
        if !object.by_handle {
            return;
        }
        match channel {
            Channel::ManagerProxy => push(
                facts,
                SentFact {
                    span,
                    object: object.site,
                    what: what.clone(),
                    hazard: SendHazard::ThroughManager,
                },
            ),
            Channel::Queue => {
                if self.sent.is_none() {
                    self.sent = Some(Box::new(Sent {
                        span,
                        object: object.site,
                        what: what.clone(),
                        code: self.running.clone(),
                    }));
                }
            }
        }
    }
}

impl Analysis for CudaAcrossProcesses {
    type Facts = Vec<SentFact>;

    fn effect(&mut self, effect: &Effect, _: &Context, facts: &mut Self::Facts) {
        match effect {
            Effect::ChildStarted(child) => {
                let ends = child.launcher.ends_with_code;
                *self = CudaAcrossProcesses {
                    ends_with_code: ends.then_some(child.span),
                    ..CudaAcrossProcesses::default()
                };
            }
            Effect::ChildRuns { code } => self.running = Some(code.clone()),
            Effect::CudaObjectSent {
                object,
                span,
                channel,
                what,
            } => self.sent(object, *span, *channel, what, facts),
            Effect::WaitedForOthers { .. } => self.waited |= self.sent.is_some(),
            _ => {}
        }
    }

    fn join(&mut self, other: Self) {
        self.ends_with_code = self.ends_with_code.or(other.ends_with_code);
        if self.running.is_none() {
            self.running = other.running;
        }
        if self.sent.is_none() {
            self.sent = other.sent;
        }
        // A wait on one path after a send (a loop whose next pass receives before it ends) is
        // taken as the process's: gpulint cannot tell which pass is the last.
        self.waited |= other.waited;
    }

    fn finish(self, _: &ProcessEnd, facts: &mut Self::Facts) {
        if let (Some(child), Some(sent), false) = (self.ends_with_code, self.sent, self.waited) {
            let sent = *sent;
            push(
                facts,
                SentFact {
                    span: sent.span,
                    object: sent.object,
                    what: sent.what,
                    hazard: SendHazard::SenderEnds {
                        child,
                        code: sent.code,
                    },
                },
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{at, child_started};
    use gpulint_core::effect::{DeviceIndex, Launcher, StartMethod};

    fn start(launcher: &'static Launcher) -> Effect {
        child_started(launcher, StartMethod::Spawn, 1)
    }

    fn send(span: u32, channel: Channel, by_handle: bool) -> Effect {
        Effect::CudaObjectSent {
            object: CudaObject {
                site: at(5),
                index: DeviceIndex::Current,
                pinned: true,
                process: 2,
                global: None,
                by_handle,
            },
            span: at(span),
            channel,
            what: "`put`".into(),
        }
    }

    fn waited() -> Effect {
        Effect::WaitedForOthers { span: at(40) }
    }

    fn run(effects: &[Effect]) -> Vec<SentFact> {
        let (cx, mut facts) = (Context::default(), Vec::new());
        let mut state = CudaAcrossProcesses::default();
        for e in effects {
            state.effect(e, &cx, &mut facts);
        }
        state.finish(&ProcessEnd::default(), &mut facts);
        facts
    }

    #[test]
    fn a_child_that_ends_after_sending_is_reported_at_its_send() {
        let [fact] = run(&[
            start(&crate::testing::PROCESS),
            send(20, Channel::Queue, true),
        ])
        .try_into()
        .unwrap();
        assert_eq!(fact.span, at(20));
        assert_eq!(
            fact.hazard,
            SendHazard::SenderEnds {
                child: at(1),
                code: None
            }
        );
    }

    #[test]
    fn a_sender_that_waits_afterwards_or_keeps_serving_is_silent() {
        let queue = send(20, Channel::Queue, true);
        assert!(run(&[start(&crate::testing::PROCESS), queue.clone(), waited()]).is_empty());
        // A pool's worker waits for its next task; the main process outlives its children.
        assert!(run(&[start(&crate::testing::POOL), queue.clone()]).is_empty());
        assert!(run(std::slice::from_ref(&queue)).is_empty());
        // A wait before the send does not keep the sender alive after it.
        assert_eq!(
            run(&[start(&crate::testing::RANKS), waited(), queue]).len(),
            1
        );
    }

    #[test]
    fn a_manager_proxy_is_reported_in_any_process_copies_are_not() {
        assert_eq!(run(&[send(20, Channel::ManagerProxy, true)]).len(), 1);
        assert!(run(&[send(20, Channel::ManagerProxy, false)]).is_empty());
        assert!(run(&[
            start(&crate::testing::PROCESS),
            send(20, Channel::Queue, false)
        ])
        .is_empty());
    }

    #[test]
    fn a_wait_on_either_path_after_the_send_counts() {
        let cx = Context::default();
        let mut facts = Vec::new();
        let mut a = CudaAcrossProcesses::default();
        a.effect(&start(&crate::testing::PROCESS), &cx, &mut facts);
        a.effect(&send(20, Channel::Queue, true), &cx, &mut facts);
        let mut b = a.clone();
        b.effect(&waited(), &cx, &mut facts);
        a.join(b);
        a.finish(&ProcessEnd::default(), &mut facts);
        assert!(facts.is_empty());
    }
}
