//! Imports of the program's own modules: a module's top level runs the first time a process imports
//! it, with that module's globals; `from m import n` reads `m`'s globals, or imports submodule `m.n`.

use super::frozen::Frozen;
use super::value::{Name, Value};
use super::Interp;
use crate::program::NodeId;
use crate::source::{FileId, Span};
use gpulint_core::analysis::Analysis as _;

/// Imports nested deeper than this are taken as already imported.
const MAX_IMPORT_DEPTH: usize = 256;

impl<'m, A: gpulint_core::analysis::Analysis> Interp<'m, A> {
    /// Imports the program's module `dotted` (after `level` dots) from the running module, running
    /// the top level of each module on the way that this process has not imported yet. `None` when
    /// the name is not one of the program's modules.
    pub(super) fn import_first_party(&mut self, level: u32, dotted: &str) -> Option<Vec<NodeId>> {
        let chain = self.p.resolve(self.cur, level, dotted)?.to_vec();
        // A project folder named like a modelled library (its own sources checked) keeps the
        // library's rows for its public API: `hvd.rank()` inside horovod is still Horovod's rank.
        if level == 0 && crate::libraries::names_package(crate::libraries::first_name(dotted)) {
            let mut prefix = String::new();
            for (node, part) in chain.iter().zip(dotted.split('.')) {
                if !prefix.is_empty() {
                    prefix.push('.');
                }
                prefix.push_str(part);
                self.library_modules
                    .entry(*node)
                    .or_insert_with(|| prefix.as_str().into());
            }
        }
        for node in &chain {
            if let Some(file) = self.p.node(*node).file {
                self.import_file(file);
            }
        }
        Some(chain)
    }

    /// Runs `file`'s top level unless this process imported it already (or is importing it: a
    /// circular import sees the partly initialised module, as in Python).
    pub(super) fn import_file(&mut self, file: FileId) {
        if self.world.globals().contains_key(&file) {
            return;
        }
        if !self.run_directly.contains(&file) {
            if let Some(frozen) = self.cache.get(file) {
                if self.frozen_applies(frozen) {
                    let frozen = std::sync::Arc::clone(frozen);
                    self.attach(&frozen);
                    if self.world.globals().contains_key(&file) {
                        return;
                    }
                }
            }
        }
        self.world.globals_mut().insert(file, Default::default());
        if self.import_depth >= MAX_IMPORT_DEPTH {
            return;
        }
        self.import_depth += 1;
        if let Some(reads) = &self.context_reads {
            reads.borrow_mut().enter(file);
        }
        self.exec_module(file);
        if let Some(reads) = &self.context_reads {
            reads.borrow_mut().leave();
        }
        self.import_depth -= 1;
    }

    /// Whether a module's top level would do here what it did in the clean process where the cache
    /// ran it. Not while a process group is pending (what the import does on the implicit device
    /// is evidence). Where the device is bound, a default CUDA device is set or a variable with a
    /// role is in the environment (CUDA's availability check switched to NVML, say), only if what
    /// it and what it imported read of that context is the same here, and the variables it sets are
    /// unset here or have the same values (a merge keeps the importer's, where running it would
    /// overwrite).
    fn frozen_applies(&self, frozen: &Frozen<A>) -> bool {
        let p = self.proc_ref();
        if !p.analyses.imports_like_clean() {
            return false;
        }
        let env_matters = p
            .env
            .keys()
            .any(|k| crate::libraries::env_role(k).is_some());
        let clean = p.bound.is_none() && p.default_cuda.is_none() && !env_matters;
        clean
            || (frozen.reads.same_in(p, self.world.globals())
                && frozen
                    .process
                    .env
                    .iter()
                    .all(|(k, v)| p.env.get(k).is_none_or(|here| here == v)))
    }

    /// Runs a module's top level as module code: no frames, its own globals, no enclosing loop.
    pub(super) fn exec_module(&mut self, file: FileId) {
        let Some(module) = self.module(file) else {
            return;
        };
        // With budgets per statement, its statements have their own and the importer's goes on
        // where it was; otherwise the import draws on the running budget.
        let fuel = self.budget.fuel;
        let frames = std::mem::take(&mut self.frames);
        let trail = self.take_trail();
        let loop_depth = std::mem::take(&mut self.control.loop_depth);
        let caller = std::mem::replace(&mut self.cur, file);
        // A module's top level runs at import, in every interpreter that imports it.
        let run_time = std::mem::replace(&mut self.control.run_time, false);
        self.world.globals_mut().entry(file).or_default();
        if file == self.main {
            // One statement at a time, so that effects can name the one running.
            let outer = self.main_statement;
            for stmt in &module.body {
                self.main_statement = Some(stmt.span);
                if self.exec_block(std::slice::from_ref(stmt)) != super::interp::Flow::Normal {
                    break;
                }
            }
            self.main_statement = outer;
        } else {
            self.exec_block(&module.body);
        }
        self.control.run_time = run_time;
        self.cur = caller;
        self.control.loop_depth = loop_depth;
        self.frames = frames;
        self.put_trail(trail);
        if self.budget.statement_budgets {
            self.budget.fuel = fuel;
        }
    }

    /// `from <node> import name`: the module's global `name`, else its submodule `name`.
    pub(super) fn import_name(
        &mut self,
        node: NodeId,
        level: u32,
        base: &str,
        name: &str,
    ) -> Value {
        if let Some(v) = self.library_row(node, name) {
            return v;
        }
        if let Some(v) = self.module_global(node, name) {
            return v;
        }
        let dotted = if base.is_empty() {
            name.to_string()
        } else {
            format!("{base}.{name}")
        };
        match self.import_first_party(level, &dotted) {
            Some(chain) if chain.len() > 1 || base.is_empty() => {
                chain.last().map_or(Value::Unknown, |n| Value::Module(*n))
            }
            _ => Value::Unknown,
        }
    }

    /// `from <node> import *`: every public global of the module.
    pub(super) fn import_star(&mut self, node: NodeId, span: Span) {
        let Some(file) = self.p.node(node).file else {
            return;
        };
        let names: Vec<(Name, Value)> = self
            .world
            .globals()
            .get(&file)
            .into_iter()
            .flat_map(|g| g.iter())
            .filter(|(name, _)| !name.starts_with('_'))
            .map(|(name, v)| (name.clone(), v.clone()))
            .collect();
        for (name, value) in names {
            self.store(&name, value, span);
        }
    }

    /// `module.attr`: a global of the module, else a submodule this process imported.
    pub(super) fn module_attribute(&mut self, node: NodeId, attr: &str) -> Value {
        if let Some(v) = self.library_row(node, attr) {
            return v;
        }
        if let Some(v) = self.module_global(node, attr) {
            return v;
        }
        match self.p.node(node).children.get(attr) {
            Some(child) => match self.p.node(*child).file {
                Some(file) if !self.world.globals().contains_key(&file) => Value::Unknown,
                _ => Value::Module(*child),
            },
            None => Value::Unknown,
        }
    }

    /// `attr` of a project module that is a modelled library's, where a row names it. Not the
    /// rows that start processes: the library's own launch code is analysed as the code it is
    /// (its version and platform branches decide how it starts them, which a row cannot know).
    fn library_row(&self, node: NodeId, attr: &str) -> Option<Value> {
        use crate::libraries::Behaviour;
        let module = self.library_modules.get(&node)?;
        let name = format!("{module}.{attr}");
        match crate::libraries::lookup(&name)? {
            (
                Behaviour::ParallelEngine { .. }
                | Behaviour::StartsChildren { .. }
                | Behaviour::ForksWorkers(_),
                _,
            ) => None,
            _ => Some(Value::Qualified(name.into())),
        }
    }

    fn module_global(&self, node: NodeId, name: &str) -> Option<Value> {
        let file = self.p.node(node).file?;
        self.world.globals().get(&file)?.get(name).cloned()
    }
}
