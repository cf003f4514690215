//! What the main program leaves for what runs after it: its main guard and the state importing it
//! leaves, what it defines only as `__main__`, the tasks a worker forks, and whether the next frame
//! is an entry point's.

use rustc_hash::FxHashSet as HashSet;

use super::process::Process;
use super::world::Saved;
use super::Definition;
use crate::model::FuncId;
use crate::source::Span;

pub(super) struct EntryState<A> {
    /// The main program's trailing `if __name__ == "__main__":`, and the world and process as
    /// they were when it was reached: what importing the module leaves (see `Interp::run`).
    pub main_guard: Option<Span>,
    pub import_state: Option<(Saved, Process<A>)>,
    /// Functions and classes the main program defines under its main guard (or anywhere, for an
    /// interactive main): a child that imports the main module afresh does not have them.
    pub main_only: HashSet<Definition>,
    /// The main module's functions a task worker runs in the children it forks after importing
    /// the module, with the decorator that registers each.
    pub forked_tasks: Vec<(FuncId, Span, &'static gpulint_core::effect::Launcher)>,
    /// The main program is an interactive `__main__` (a notebook): a child started by spawn or
    /// forkserver does not import it at all.
    pub interactive: bool,
    /// The next frame is an entry's or its receiver's: its callers are unknown.
    pub entry_call: bool,
}

impl<A> EntryState<A> {
    pub fn new(interactive: bool) -> EntryState<A> {
        EntryState {
            main_guard: None,
            import_state: None,
            main_only: HashSet::default(),
            forked_tasks: Vec::new(),
            interactive,
            entry_call: false,
        }
    }
}
