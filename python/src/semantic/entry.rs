//! What the main program leaves for what runs after it: its main guard and the state importing it
//! leaves, what it defines only as `__main__`, the tasks a worker forks, and whether the next frame
//! is an entry point's.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use gpulint_core::analysis::Analysis;

use super::process::Process;
use super::value::Value;
use super::world::Saved;
use super::Definition;
use super::Object;
use super::{names, Interp};
use crate::model::{ClassId, FuncId, Receives};
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

/// What every entry point starts from: the world and process the main program left, and each
/// class's instance as built once by `__init__` (with the process state building it left).
pub(super) struct EntryBase<A> {
    pub world: Saved,
    pub end_of_main: Process<A>,
    /// Keyed by the class and the decorator that narrows its devices, which the building sees.
    pub receivers: HashMap<(ClassId, Option<Span>), (Value, Process<A>)>,
}

impl<'m, A: Analysis> Interp<'m, A> {
    /// Runs one function as an entry point, from the state the main program left. With `partial`,
    /// it has callers elsewhere (see `ProcessEnd::partial`).
    pub(super) fn run_entry(&mut self, id: FuncId, partial: bool, base: &mut EntryBase<A>) {
        self.world.start_entry(base.world.clone());
        let mut process = base.end_of_main.clone();
        process.partial = partial;
        let entry = Some(if partial {
            gpulint_core::effect::EntryCallers::InProject
        } else {
            gpulint_core::effect::EntryCallers::Unknown
        });
        process.entry = entry;
        process.exited = false;
        // Ray gives the worker its own GPUs before `__init__` runs.
        let narrowed = names::narrowing_decorator(self, id);
        if let Some(span) = narrowed {
            process.bound = Some(span);
            process.per_worker = true;
        }
        self.control.run_time = true;
        // An entry starts where the main program ended, with every function fresh.
        self.budget.start_entry();
        let func = self.func(id);
        let receiver = match func.class {
            None => None,
            Some(class) if func.receives() == Receives::Class => Some(Value::Class(class)),
            Some(_) if func.receives() == Receives::Nothing => None,
            // A partial `__init__` entry is the building of the receiver every other method's
            // entry starts from: built once, it serves both.
            Some(class)
                if func.name == "__init__"
                    && partial
                    && narrowed.is_none()
                    && self.find_method(class, "__init__") == Some(id) =>
            {
                let (_, built) = self.receiver(class, narrowed, process, base);
                self.control.run_time = false;
                self.finish_process(built);
                return;
            }
            Some(class) if func.name == "__init__" => Some(self.alloc(Object::Instance {
                class,
                attrs: HashMap::default(),
                held_by: None,
            })),
            Some(class) => {
                let (value, built) = self.receiver(class, narrowed, process, base);
                process = built;
                Some(value)
            }
        };
        // A receiver built once serves entries of either kind.
        process.entry = entry;
        self.procs.push(process);
        if let Some(span) = narrowed {
            self.narrowed(span);
        }
        self.entry.entry_call = true;
        self.call_function(id, None, receiver, Vec::new(), Vec::new());
        self.entry.entry_call = false;
        self.control.run_time = false;
        let process = self.procs.pop().unwrap_or_default();
        self.finish_process(process);
    }

    /// An instance of `class` as its `__init__` builds it from `process` (once per entry kind), and
    /// the process state building it left.
    fn receiver(
        &mut self,
        class: ClassId,
        narrowed: Option<Span>,
        mut process: Process<A>,
        base: &mut EntryBase<A>,
    ) -> (Value, Process<A>) {
        if let Some((value, built)) = base.receivers.get(&(class, narrowed)) {
            return (value.clone(), built.clone());
        }
        // Whoever built the object may have bound the device before, or between that and this
        // call: a process group from `__init__` is judged by the `__init__` entry and by the
        // callers' analyses.
        process.partial = true;
        self.procs.push(process);
        // Ray gives the actor its own GPUs before `__init__` runs.
        if let Some(span) = narrowed {
            self.narrowed(span);
        }
        self.entry.entry_call = true;
        let value = self.instantiate(class, Vec::new(), Vec::new());
        self.entry.entry_call = false;
        let built = self.procs.pop().unwrap_or_default();
        base.receivers
            .insert((class, narrowed), (value.clone(), built.clone()));
        self.memo.rebase(self.world.dirty());
        base.world = self.world.save();
        (value, built)
    }

    /// What the end of a skipped entry decides is what the end of an empty one does: one of each
    /// kind (`skipped[partial]`) ends in its place.
    pub(super) fn finish_skipped(&mut self, skipped: [bool; 2], base: &EntryBase<A>) {
        for partial in [false, true] {
            if skipped[partial as usize] {
                let mut process = base.end_of_main.clone();
                process.partial = partial;
                process.entry = Some(if partial {
                    gpulint_core::effect::EntryCallers::InProject
                } else {
                    gpulint_core::effect::EntryCallers::Unknown
                });
                process.exited = false;
                self.finish_process(process);
            }
        }
    }
}
