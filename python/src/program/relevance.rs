//! The import graph as the analyses ask about it (what an import names, what a file imports), and
//! relevance: whether a file, or a module it imports, can reach a GPU library.

use rustc_hash::FxHashSet as HashSet;

use crate::source::{FileId, Span};

use super::{NodeId, Program};

impl Program {
    /// The modules an import in `file` names (`level` dots, then `dotted`), outermost first;
    /// `None` when it is not a module of this program.
    pub fn resolve(&self, file: FileId, level: u32, dotted: &str) -> Option<&[NodeId]> {
        self.files[file.0 as usize]
            .imports
            .get(&(level, dotted.to_string()))
            .map(Vec::as_slice)
    }

    /// The files the relevant checked files import, transitively (anywhere in them), in id order:
    /// the modules whose import an analysis may run.
    pub fn imported_files(&self) -> Vec<FileId> {
        let roots = self
            .files()
            .filter(|(_, f)| f.checked && f.relevant)
            .map(|(id, _)| id);
        self.imported_from(roots)
    }

    /// [`Program::imported_files`] of the relevant files among `roots` alone: the modules their
    /// analyses may import.
    pub fn imported_from(&self, roots: impl IntoIterator<Item = FileId>) -> Vec<FileId> {
        let mut seen: HashSet<FileId> = HashSet::default();
        let mut todo: Vec<FileId> = roots
            .into_iter()
            .filter(|id| self.files[id.0 as usize].relevant)
            .collect();
        let mut out = Vec::new();
        while let Some(file) = todo.pop() {
            for chain in self.files[file.0 as usize].imports.values() {
                for node in chain {
                    if let Some(f) = self.nodes[node.0 as usize].file {
                        if seen.insert(f) {
                            out.push(f);
                            todo.push(f);
                        }
                    }
                }
            }
        }
        out.sort();
        out.retain(|f| self.module(*f).is_some());
        out
    }

    /// For each file, the files whose imports name it (read from the text for files only
    /// scanned), by index.
    pub(super) fn importers(&self) -> Vec<Vec<u32>> {
        let mut importers: Vec<Vec<u32>> = vec![Vec::new(); self.files.len()];
        for (i, file) in self.files.iter().enumerate() {
            for node in file.imports.values().flatten() {
                if let Some(f) = self.nodes[node.0 as usize].file {
                    importers[f.0 as usize].push(i as u32);
                }
            }
        }
        importers
    }

    /// Where importing the native module `name` from `importer` initialises CUDA, if it does: the
    /// module of a crate whose folder (the one holding its `Cargo.toml`) holds the importer, as in
    /// a mixed Rust and Python project; another project's module of the same name is not this one.
    pub fn native_module(
        &self,
        name: &str,
        importer: FileId,
    ) -> Option<&gpulint_core::effect::CudaInitSite> {
        let importer = self.files.get(importer.0 as usize)?.path.as_path();
        self.native.get(name)?.iter().find(|site| {
            let Some(source) = self.native_paths.get(&site.span.file) else {
                return false;
            };
            source
                .ancestors()
                .skip(1)
                .find(|dir| dir.join("Cargo.toml").is_file())
                .is_some_and(|krate| importer.starts_with(krate))
        })
    }

    /// The program's files that `id`'s imports name (anywhere in it), in id order.
    pub fn imports_of(&self, id: FileId) -> Vec<FileId> {
        let mut out: Vec<FileId> = self.files[id.0 as usize]
            .imports
            .values()
            .flatten()
            .filter_map(|n| self.nodes[n.0 as usize].file)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Moves the native modules' sites to the ids the run gives their files (another frontend's,
    /// which the program does not hold), and keeps the path of each (`path`, by the site's file
    /// as given), to tell which crate a site belongs to.
    pub fn remap_native(
        &mut self,
        id: impl Fn(FileId) -> FileId,
        path: impl Fn(FileId) -> std::path::PathBuf,
    ) {
        for site in self.native.values_mut().flatten() {
            let moved = id(site.span.file);
            self.native_paths
                .entry(moved)
                .or_insert_with(|| path(site.span.file));
            site.span = Span::new(moved, site.span.start, site.span.end);
        }
    }

    pub(super) fn imports_native(&self, imports: &[(u32, String)]) -> bool {
        imports.iter().any(|(level, dotted)| {
            *level == 0
                && self
                    .native
                    .contains_key(dotted.split('.').next().unwrap_or(dotted))
        })
    }

    /// The files whose top level runs when `file`'s does (module-level imports of the program's own
    /// modules).
    pub fn imports_at_top_level(&self, file: FileId) -> &[FileId] {
        &self.files[file.0 as usize].runs_at_import
    }

    /// Whether analysing `file` can find anything: it, or a first-party module it imports
    /// (transitively), imports a package through which CUDA can enter the program, or it may
    /// set a start method itself ([`crate::names::sets_start_method`]).
    pub fn is_relevant(&self, file: FileId) -> bool {
        self.files[file.0 as usize].relevant
    }

    /// From each file's own GPU imports (set while reading), the files that import one
    /// transitively; with the files that may set a start method, the relevant ones.
    pub(super) fn compute_relevance(&mut self) {
        // From scratch: a scanned file's imports, read from its text, may be more than its parsed
        // ones. Importing a module that reaches a GPU library makes the importer reach it: walk
        // the import edges backwards from the files that import a GPU library.
        let importers = self.importers();
        let mut todo = Vec::new();
        for (i, file) in self.files.iter_mut().enumerate() {
            file.reaches_gpu = file.gpu;
            if file.gpu {
                todo.push(i);
            }
        }
        while let Some(f) = todo.pop() {
            for &importer in &importers[f] {
                let file = &mut self.files[importer as usize];
                if !file.reaches_gpu {
                    file.reaches_gpu = true;
                    todo.push(importer as usize);
                }
            }
        }
        // A module that sets the start method is analysed for what it does itself; its importers
        // are not made relevant by it (`multiprocessing` defines the function, and most of a
        // tree like the standard library imports it).
        for file in &mut self.files {
            file.relevant = file.reaches_gpu || file.sets_start_method;
        }
    }
}
