//! The work bounds of one analysis, as they are spent: the fuel of the running program point, how
//! often each function and fork point ran, and where a bound cut the analysis short.

use rustc_hash::FxHashMap as HashMap;

use super::value::Value;
use super::Cut;
use crate::model::FuncId;
use crate::source::Span;

pub(super) struct Budget {
    /// Steps left to the running program point (see `STATEMENT_FUEL` and the others).
    pub fuel: u64,
    /// Whether module-level statements get a budget each (the main program's top level, a cached
    /// import); elsewhere (a child's re-import, an entry's import) they share the running budget.
    pub statement_budgets: bool,
    /// How often each function was analysed, per process; and the last result of each.
    pub calls: HashMap<(FuncId, u32), u32>,
    pub last_result: HashMap<FuncId, Value>,
    /// How often each fork point started its child, per process.
    pub children: HashMap<(Span, u32), u32>,
    /// Where the analysis was cut short (a budget ran out), for `--verbose`.
    pub cuts: Vec<Cut>,
}

impl Budget {
    pub fn new() -> Budget {
        Budget {
            fuel: super::STATEMENT_FUEL,
            statement_budgets: false,
            calls: HashMap::default(),
            last_result: HashMap::default(),
            children: HashMap::default(),
            cuts: Vec::new(),
        }
    }

    /// One step.
    pub fn spend(&mut self) {
        self.fuel = self.fuel.saturating_sub(1);
    }

    /// A child starts: a child of the main program (or an entry, `of_top`) has a budget of its
    /// own; a child's child draws on its parent's. The fuel before, for the parent to go on with.
    pub fn start_child(&mut self, of_top: bool) -> u64 {
        let budget = if of_top {
            super::CHILD_FUEL
        } else {
            self.fuel.min(super::CHILD_FUEL)
        };
        std::mem::replace(&mut self.fuel, budget)
    }

    /// An entry point starts where the main program ended, with a budget of its own and every
    /// function and fork point fresh.
    pub fn start_entry(&mut self) {
        self.fuel = super::ENTRY_FUEL;
        self.calls.clear();
        self.children.clear();
    }
}
