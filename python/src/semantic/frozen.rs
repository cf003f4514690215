//! The import cache. Importing a module runs its top level the same way whoever imports it, so each
//! of the program's imported modules is run once, in a clean process, and the state that leaves (its
//! globals and those of the modules it imported, their objects, class tables, and what it did to
//! the process) is kept. An analysis that imports the module attaches that state instead of running
//! the top level again. Modules that import each other (an import cycle) are run together, once.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::sync::Arc;

use rayon::prelude::*;

use super::process::Process;
use super::value::{Name, Value};
use super::world::FrozenWorld;
use super::{Interp, Settings};
use crate::program::Program;
use crate::source::FileId;
use gpulint_core::analysis::Analysis;

/// The state a module's import leaves in a clean process.
#[derive(Debug)]
pub(super) struct Frozen<A> {
    pub world: FrozenWorld,
    pub process: Process<A>,
    /// What its top level, or one it imported, read of the process context: it is reused in a
    /// process that is not clean only where those reads give the same.
    pub reads: ContextReads,
}

/// What a read of the process context asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Read {
    /// The context as a whole (a child inheriting the environment, the environment listed).
    Whole,
    /// A variable's value in the environment, and what it was.
    Env(String, Option<String>),
    /// Whether the device is bound, and whether it was.
    Bound(bool),
    /// Whether a default CUDA device is set, and whether it was.
    DefaultCuda(bool),
}

/// What a frozen import read of the process context, with what it saw, by the module whose top
/// level was running (a read made while running a module the importer already has is not made
/// again there). Reads of the same thing that saw different values (a module set a variable
/// between them) are kept both: no process matches them all, so the import runs again there.
#[derive(Clone, Debug, Default)]
pub(super) struct ContextReads {
    reads: Vec<(FileId, Read)>,
    /// The modules whose top level is running, innermost last.
    importing: Vec<FileId>,
}

impl ContextReads {
    pub fn read(&mut self, read: Read) {
        // Outside any import (the frozen module's own run): always read again.
        let by = self.importing.last().copied().unwrap_or(FileId(u32::MAX));
        self.add(by, read);
    }

    fn add(&mut self, by: FileId, read: Read) {
        if !self.reads.iter().any(|(f, r)| *f == by && *r == read) {
            self.reads.push((by, read));
        }
    }

    pub fn enter(&mut self, module: FileId) {
        self.importing.push(module);
    }

    pub fn leave(&mut self) {
        self.importing.pop();
    }

    fn merge(&mut self, other: &ContextReads) {
        for (by, read) in &other.reads {
            self.add(*by, read.clone());
        }
    }

    /// Whether every read a reuse in `process` stands for gives there what it gave while
    /// freezing: those of modules `process` has not imported yet.
    pub fn same_in<A>(
        &self,
        process: &Process<A>,
        imported: &HashMap<FileId, Arc<HashMap<Name, Value>>>,
    ) -> bool {
        self.reads.iter().all(|(by, read)| {
            imported.contains_key(by)
                || match read {
                    Read::Whole => false,
                    Read::Env(k, v) => process.env.get(k) == v.as_ref(),
                    Read::Bound(seen) => process.bound.is_some() == *seen,
                    Read::DefaultCuda(seen) => process.default_cuda.is_some() == *seen,
                }
        })
    }
}

/// The frozen import of every module some file of the program imports.
#[derive(Debug)]
pub struct ImportCache<A> {
    frozen: Vec<Option<Arc<Frozen<A>>>>,
}

impl<A> Default for ImportCache<A> {
    fn default() -> Self {
        ImportCache { frozen: Vec::new() }
    }
}

impl<A: Analysis> ImportCache<A> {
    /// Runs each imported module's top level once, dependencies first; import cycles of the same
    /// depth in parallel.
    pub fn build(program: &Program, settings: Settings) -> ImportCache<A> {
        ImportCache::build_of(program, settings, program.imported_files())
    }

    /// [`ImportCache::build`] for the analyses of `roots` alone (see [`Program::imported_from`]):
    /// each module's frozen state is the one the whole program's cache holds, since it depends only
    /// on the modules it imports, which are among these.
    pub fn build_for(program: &Program, settings: Settings, roots: &[FileId]) -> ImportCache<A> {
        let imported = program.imported_from(roots.iter().copied());
        ImportCache::build_of(program, settings, imported)
    }

    fn build_of(program: &Program, settings: Settings, imported: Vec<FileId>) -> ImportCache<A> {
        let count = program.files().count();
        let mut cache = ImportCache {
            frozen: vec![None; count],
        };
        let cycles = strongly_connected(program, &imported);
        // A cycle's depth: one more than the deepest cycle it imports.
        let mut depth_of_file: HashMap<FileId, usize> = HashMap::default();
        let mut by_depth: Vec<Vec<Vec<FileId>>> = Vec::new();
        for cycle in cycles {
            let members: HashSet<FileId> = cycle.iter().copied().collect();
            let depth = cycle
                .iter()
                .flat_map(|f| program.imports_at_top_level(*f))
                .filter(|d| !members.contains(d))
                .filter_map(|d| depth_of_file.get(d))
                .map(|d| d + 1)
                .max()
                .unwrap_or(0);
            for f in &cycle {
                depth_of_file.insert(*f, depth);
            }
            if by_depth.len() <= depth {
                by_depth.resize(depth + 1, Vec::new());
            }
            by_depth[depth].push(cycle);
        }
        for cycles in by_depth {
            let done: Vec<(Vec<FileId>, Arc<Frozen<A>>)> = cycles
                .into_par_iter()
                // One module (or cycle) a job, so that no thread finishes a run of them alone.
                .with_max_len(1)
                .map(|cycle| {
                    let frozen = Arc::new(freeze(program, &cache, &cycle, settings.clone()));
                    (cycle, frozen)
                })
                .collect();
            for (cycle, frozen) in done {
                for f in cycle {
                    cache.frozen[f.0 as usize] = Some(Arc::clone(&frozen));
                }
            }
        }
        cache
    }

    pub(super) fn get(&self, file: FileId) -> Option<&Arc<Frozen<A>>> {
        self.frozen.get(file.0 as usize)?.as_ref()
    }
}

/// Imports `members` (one module, or an import cycle) into a clean process.
fn freeze<A: Analysis>(
    program: &Program,
    cache: &ImportCache<A>,
    members: &[FileId],
    settings: Settings,
) -> Frozen<A> {
    let no_main = FileId(u32::MAX);
    let mut interp = Interp::new(program, cache, no_main, settings, None);
    interp.context_reads = Some(Default::default());
    interp.run_directly = members.iter().copied().collect();
    interp.budget.statement_budgets = true;
    for &m in members {
        interp.import_file(m);
    }
    Frozen {
        world: interp.world.freeze(),
        reads: interp
            .context_reads
            .take()
            .map(|r| r.into_inner())
            .unwrap_or_default(),
        process: interp.procs.pop().unwrap_or_default(),
    }
}

impl<A: Analysis> Interp<'_, A> {
    /// Makes a frozen import part of this process: its modules (those not imported here yet), their
    /// objects and classes, and its effects on the process.
    pub(super) fn attach(&mut self, frozen: &Frozen<A>) {
        if let Some(reads) = &self.context_reads {
            reads.borrow_mut().merge(&frozen.reads);
        }
        self.world.attach(&frozen.world);
        self.proc().attach(&frozen.process);
    }
}

/// The strongly connected components of the module-level import graph among `files`, each listed
/// after every component it imports (Tarjan's algorithm, iterative).
fn strongly_connected(program: &Program, files: &[FileId]) -> Vec<Vec<FileId>> {
    let wanted: HashSet<FileId> = files.iter().copied().collect();
    let edges = |f: FileId| -> Vec<FileId> {
        program
            .imports_at_top_level(f)
            .iter()
            .copied()
            .filter(|d| wanted.contains(d))
            .collect()
    };
    let mut index: HashMap<FileId, usize> = HashMap::default();
    let mut low: HashMap<FileId, usize> = HashMap::default();
    let mut on_stack: HashSet<FileId> = HashSet::default();
    let mut stack: Vec<FileId> = Vec::new();
    let mut out = Vec::new();
    let mut next = 0;
    for &root in files {
        if index.contains_key(&root) {
            continue;
        }
        // (node, its edges, the next edge to follow)
        let mut work: Vec<(FileId, Vec<FileId>, usize)> = vec![(root, edges(root), 0)];
        index.insert(root, next);
        low.insert(root, next);
        next += 1;
        stack.push(root);
        on_stack.insert(root);
        while let Some((node, succ, i)) = work.last_mut() {
            let node = *node;
            if *i < succ.len() {
                let s = succ[*i];
                *i += 1;
                if let Some(&seen) = index.get(&s) {
                    if on_stack.contains(&s) {
                        let l = low[&node].min(seen);
                        low.insert(node, l);
                    }
                } else {
                    index.insert(s, next);
                    low.insert(s, next);
                    next += 1;
                    stack.push(s);
                    on_stack.insert(s);
                    work.push((s, edges(s), 0));
                }
                continue;
            }
            work.pop();
            if let Some((parent, _, _)) = work.last() {
                let l = low[parent].min(low[&node]);
                low.insert(*parent, l);
            }
            if low[&node] == index[&node] {
                let mut component = Vec::new();
                while let Some(f) = stack.pop() {
                    on_stack.remove(&f);
                    component.push(f);
                    if f == node {
                        break;
                    }
                }
                component.sort();
                out.push(component);
            }
        }
    }
    out
}
