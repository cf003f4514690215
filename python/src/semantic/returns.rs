//! Paths that return from a function: what they did to the process reaches the caller, but not the
//! code after the branch that returned (a write on a path that returned precedes no later statement
//! of the function).

use gpulint_core::analysis::Analysis;

use super::interp::Flow;
use super::process::Process;
use super::Interp;

/// How two branches that both ran leave the code after them.
pub(super) fn both(body: Flow, orelse: Flow) -> Flow {
    match (body, orelse) {
        (Flow::Return, Flow::Return) => Flow::Return,
        (Flow::Normal, _) | (_, Flow::Normal) => Flow::Normal,
        _ => Flow::Jump,
    }
}

impl<A: Analysis> Interp<'_, A> {
    /// A branch left the code here with `process`: a `return` hands it to the function's end;
    /// a `continue` or `raise` joins it now (the next iteration or a handler sees it).
    pub(super) fn left(&mut self, flow: Flow, process: Process<A>) {
        if flow != Flow::Return || self.frames.is_empty() {
            self.join_process(process);
            return;
        }
        if process.exited {
            return;
        }
        match &mut self.returned {
            Some(returned) => returned.join(process),
            None => self.returned = Some(process),
        }
    }

    /// The running function ended: the paths that returned early join the one that ran to its
    /// end, and the enclosing function's returned paths (`outer`) are its own again.
    pub(super) fn function_ended(&mut self, outer: Option<Process<A>>) {
        if let Some(returned) = std::mem::replace(&mut self.returned, outer) {
            self.proc().join(returned);
        }
    }
}
