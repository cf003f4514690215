//! Import resolution: each import statement's dotted name, resolved under the importing file's
//! search roots to the program's own modules (a chain of nodes, outermost first), once per folder.

use std::path::{Path, PathBuf};

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use gpulint_core::fsio::FileState;

use crate::known;
use crate::model::{Module, Stmt, StmtKind};
use crate::source::FileId;

use super::fs::{normalize, shown, Fs, Probe};
use super::load::Builder;
use super::read::MAX_FILE_BYTES;
use super::{Node, NodeId};

impl Builder {
    /// Resolves every import in `id`; returns the files it found that are not yet in the program.
    pub(super) fn resolve_imports(&mut self, id: FileId, wanted: Wanted) -> Vec<FileId> {
        let Wanted {
            imports: wanted,
            top_level,
        } = wanted;
        let importer = normalize(&self.program.files[id.0 as usize].path);
        let mut found = Vec::new();
        let mut resolved: HashMap<(u32, String), Vec<NodeId>> = HashMap::default();
        let mut runs_at_import = Vec::new();
        let folder = importer.parent().map(|dir| {
            let next = self.resolved.len();
            let index = *self.folders.entry(dir.to_path_buf()).or_insert(next);
            if index == next {
                self.resolved.push(HashMap::default());
            }
            index
        });
        let mut spelled = String::new();
        for (i, (level, dotted)) in wanted.into_iter().enumerate() {
            let key = (level, dotted);
            if !resolved.contains_key(&key) {
                let Some(folder) = folder else { continue };
                match self.resolve(folder, &importer, &key, &mut spelled, &mut found) {
                    Some(chain) => {
                        resolved.insert(key.clone(), chain);
                    }
                    None => continue,
                }
            }
            if i < top_level {
                let nodes = &self.program.nodes;
                runs_at_import.extend(
                    resolved[&key]
                        .iter()
                        .filter_map(|n| nodes[n.0 as usize].file),
                );
            }
        }
        runs_at_import.sort();
        runs_at_import.dedup();
        runs_at_import.retain(|f| *f != id);
        let file = &mut self.program.files[id.0 as usize];
        file.imports = resolved;
        file.runs_at_import = runs_at_import;
        found
    }

    /// Resolves an import of a file in `folder` (an index into `resolved`), once per folder: files
    /// of one folder resolve imports alike. `spelled` is a buffer for the import as Python spells
    /// it, the key, so that a known import is looked up without building one.
    pub(super) fn resolve(
        &mut self,
        folder: usize,
        importer: &Path,
        (level, dotted): &(u32, String),
        spelled: &mut String,
        found: &mut Vec<FileId>,
    ) -> Option<Vec<NodeId>> {
        spelled.clear();
        spelled.extend(std::iter::repeat_n('.', *level as usize));
        spelled.push_str(dotted);
        if let Some(known) = self.resolved[folder].get(spelled.as_str()) {
            return known.clone();
        }
        let chain = self.resolve_uncached(importer, *level, dotted, found);
        self.resolved[folder].insert(spelled.clone(), chain.clone());
        chain
    }

    fn resolve_uncached(
        &mut self,
        importer: &Path,
        level: u32,
        dotted: &str,
        found: &mut Vec<FileId>,
    ) -> Option<Vec<NodeId>> {
        let parts: Vec<&str> = dotted.split('.').filter(|p| !p.is_empty()).collect();
        if level > 0 {
            let mut base = importer.parent()?.to_path_buf();
            for _ in 1..level {
                base = base.parent()?.to_path_buf();
            }
            let mut chain = Vec::new();
            if parts.is_empty() {
                chain.push(self.package_node(&base, found)?);
                return Some(chain);
            }
            return self.chain(&base, &parts, found);
        }
        let in_environment = !self.program.environment.is_empty() && {
            let key = self.fs.identity(importer);
            self.program.environment.root_of(&key).is_some()
        };
        // An installed package's absolute imports are looked for in the environment alone.
        if !in_environment {
            let roots = self.roots_of(importer);
            let first_party = roots
                .iter()
                .find_map(|root| self.chain_if_first_party(root, &parts));
            if let Some(root) = first_party {
                return self.chain(&root, &parts, found);
            }
        }
        self.chain_in_environment(&parts, found)
    }

    /// The nodes of an installed package's module `parts`, where no row covers the package and
    /// the program has not read its share of the environment yet (see `environment`).
    fn chain_in_environment(
        &mut self,
        parts: &[&str],
        found: &mut Vec<FileId>,
    ) -> Option<Vec<NodeId>> {
        if self.program.environment.is_empty()
            || !super::followed(parts.first()?)
            || self.program.environment_files >= super::MAX_ENVIRONMENT_FILES
        {
            return None;
        }
        let roots = self.program.environment.site_packages().to_vec();
        let root = roots
            .iter()
            .find_map(|root| self.chain_if_first_party(root, parts))?;
        self.chain(&root, parts, found)
    }

    /// `root` if `parts` name a first-party module under it: a file all the way down, or a regular
    /// package at the top (a bare folder named like a library, `datasets/`, is data, not code).
    pub(super) fn chain_if_first_party(&mut self, root: &Path, parts: &[&str]) -> Option<PathBuf> {
        let first = parts.first()?;
        // A deeper module lies in a folder named `first`: most roots tried have none.
        if module_path(&mut self.fs, root, &[first]).is_some()
            || parts.len() > 1
                && self.fs.is_dir(&root.join(first))
                && module_path(&mut self.fs, root, parts).is_some()
        {
            Some(root.to_path_buf())
        } else {
            None
        }
    }

    /// The nodes for each prefix of `parts` under `base`; `None` if some prefix is not there.
    pub(super) fn chain(
        &mut self,
        base: &Path,
        parts: &[&str],
        found: &mut Vec<FileId>,
    ) -> Option<Vec<NodeId>> {
        let mut chain: Vec<NodeId> = Vec::new();
        // One buffer, grown and cut back for each name tried: `dir/part/__init__.py`, then
        // `dir/part.py`, then `dir/part`, which the next part goes on from.
        let mut path = base.to_path_buf();
        for (i, part) in parts.iter().enumerate() {
            path.push(part);
            path.push("__init__.py");
            let is_package = self.fs.is_file(&path);
            path.pop();
            let node = if is_package {
                self.package_node(&path, found)?
            } else if self.fs.is_file(with_py(&mut path)) {
                if i + 1 < parts.len() {
                    return None;
                }
                let node = self.file_node(&path, found);
                without_py(&mut path);
                node
            } else {
                without_py(&mut path);
                if self.fs.is_dir(&path) {
                    self.package_node(&path, found)?
                } else {
                    return None;
                }
            };
            if let Some(parent) = chain.last() {
                self.program.nodes[parent.0 as usize]
                    .children
                    .insert(part.to_string(), node);
            }
            chain.push(node);
        }
        Some(chain)
    }

    fn package_node(&mut self, dir: &Path, found: &mut Vec<FileId>) -> Option<NodeId> {
        if !self.fs.is_dir(dir) {
            return None;
        }
        let key = self.fs.identity(dir);
        if let Some(id) = self.nodes_by_path.get(&key) {
            return Some(*id);
        }
        let init = dir.join("__init__.py");
        let file = self.fs.is_file(&init).then(|| self.file_id(&init, found));
        Some(self.new_node(key, file))
    }

    fn file_node(&mut self, path: &Path, found: &mut Vec<FileId>) -> NodeId {
        let key = self.fs.identity(path);
        if let Some(id) = self.nodes_by_path.get(&key) {
            return *id;
        }
        let file = self.file_id(path, found);
        self.new_node(key, Some(file))
    }

    fn new_node(&mut self, key: PathBuf, file: Option<FileId>) -> NodeId {
        let id = NodeId(self.program.nodes.len() as u32);
        self.program.nodes.push(Node {
            file,
            children: HashMap::default(),
        });
        self.nodes_by_path.insert(key, id);
        id
    }

    fn file_id(&mut self, path: &Path, found: &mut Vec<FileId>) -> FileId {
        let key = self.fs.identity(path);
        if let Some(id) = self.by_path.get(&key) {
            return *id;
        }
        let id = self.add_file(key, shown(path), false);
        found.push(id);
        id
    }

    /// Where absolute imports in `file` are looked for, in order.
    fn roots_of(&mut self, file: &Path) -> Vec<PathBuf> {
        let Some(dir) = file.parent() else {
            return Vec::new();
        };
        if let Some(roots) = self.roots.get(dir) {
            return roots.clone();
        }
        // Inside a regular package, absolute imports start above its top package; a plain folder
        // may be a script's (on `sys.path` when it runs). Then every folder up to the project root,
        // where a script started from it would find its modules.
        let project = dir.ancestors().find(|d| is_project_root(&mut self.fs, d));
        // Never above the project root, even when it holds an `__init__.py` itself.
        let mut top = dir;
        while self.fs.is_file(&top.join("__init__.py")) && Some(top) != project {
            match top.parent() {
                Some(parent) => top = parent,
                None => break,
            }
        }
        let mut roots = Vec::new();
        for ancestor in top.ancestors() {
            roots.push(ancestor.to_path_buf());
            let stop = match (project, self.boundary.as_deref()) {
                (Some(project), _) => ancestor == project || !ancestor.starts_with(project),
                (None, Some(checked)) => ancestor == checked || !ancestor.starts_with(checked),
                (None, None) => true,
            };
            if stop {
                break;
            }
        }
        if let Some(project) = project {
            roots.push(project.join("src"));
            roots.extend(named_package_roots(&mut self.fs, project));
        }
        let mut seen = HashSet::default();
        roots.retain(|r| seen.insert(r.clone()) && self.fs.is_dir(r));
        self.roots.insert(dir.to_path_buf(), roots.clone());
        roots
    }
}

/// Folders holding the package `[project] name` of the root's `pyproject.toml` names, for layouts
/// other than flat and `src/` (`python/my_pkg/`).
fn named_package_roots(fs: &mut Fs, project: &Path) -> Vec<PathBuf> {
    let pyproject = project.join("pyproject.toml");
    let read = gpulint_core::fsio::read_regular_state(&pyproject, MAX_FILE_BYTES).ok();
    if fs.record {
        fs.probes.push(Probe::Read {
            path: pyproject.clone(),
            state: read.as_ref().map(|(_, meta)| FileState::of(meta)),
            digest: read.as_ref().map(|(bytes, _)| known::digest(bytes)),
        });
    }
    let Some(name) = read
        .and_then(|(bytes, _)| String::from_utf8(bytes).ok())
        .and_then(|text| text.parse::<toml::Table>().ok())
        .and_then(|t| t.get("project")?.get("name")?.as_str().map(str::to_string))
    else {
        return Vec::new();
    };
    let package = name.replace(['-', '.'], "_").to_lowercase();
    // Its folders, as the listing the resolver keeps has them (links followed).
    let Some(entries) = fs.list(project) else {
        return Vec::new();
    };
    // A hidden folder is no source root (`.venv`, `.tox`, a cache).
    let mut roots: Vec<PathBuf> = entries
        .into_keys()
        .filter(|name| !name.as_encoded_bytes().starts_with(b"."))
        .map(|name| project.join(name))
        .filter(|d| fs.is_file(&d.join(&package).join("__init__.py")))
        .collect();
    roots.sort();
    roots
}

pub(super) fn is_project_root(fs: &mut Fs, dir: &Path) -> bool {
    ["pyproject.toml", "setup.py", "setup.cfg", ".git"]
        .iter()
        .any(|marker| fs.exists(&dir.join(marker)))
}

/// The file of module `parts` under `root`, if there is one.
fn module_path(fs: &mut Fs, root: &Path, parts: &[&str]) -> Option<PathBuf> {
    let (last, dirs) = parts.split_last()?;
    let mut path = root.to_path_buf();
    for d in dirs {
        path.push(d);
    }
    path.push(last);
    if fs.is_file(with_py(&mut path)) {
        return Some(path);
    }
    without_py(&mut path);
    path.push("__init__.py");
    fs.is_file(&path).then_some(path)
}

/// `path` with `.py` appended to its last name (`a/b` → `a/b.py`), in place. The name is a part of a
/// dotted module name, so it holds no dot that `set_extension` could take for an extension.
fn with_py(path: &mut PathBuf) -> &Path {
    debug_assert!(path.extension().is_none());
    path.set_extension("py");
    path
}

/// Undoes [`with_py`].
fn without_py(path: &mut PathBuf) {
    path.set_extension("");
}

/// The imports a module makes, to resolve: the first `top_level` of them run with its top level
/// (module and class bodies), the rest in its functions.
#[derive(Default)]
pub(super) struct Wanted {
    pub(super) imports: Vec<(u32, String)>,
    pub(super) top_level: usize,
}

pub(super) fn wanted_imports(module: &Module) -> Wanted {
    let mut imports = Vec::new();
    let top_blocks = std::iter::once(&module.body).chain(module.classes.iter().map(|c| &c.body));
    for stmt in top_blocks.flatten() {
        collect_imports(stmt, &mut imports);
    }
    let top_level = imports.len();
    for stmt in module.functions.iter().flat_map(|f| &f.body) {
        collect_imports(stmt, &mut imports);
    }
    Wanted { imports, top_level }
}

/// The imports a statement (and the blocks inside it) makes, as `(level, dotted)` to resolve. For
/// `from m import n`, both `m` and `m.n` (which may be a submodule).
fn collect_imports(stmt: &Stmt, out: &mut Vec<(u32, String)>) {
    match &stmt.kind {
        StmtKind::Import(names) => {
            for n in names {
                out.push((0, n.name.clone()));
            }
        }
        StmtKind::ImportFrom {
            module,
            level,
            names,
        } => {
            let base = module.clone().unwrap_or_default();
            out.push((*level, base.clone()));
            for n in names.iter().filter(|n| n.name != "*") {
                let full = if base.is_empty() {
                    n.name.clone()
                } else {
                    format!("{base}.{}", n.name)
                };
                out.push((*level, full));
            }
        }
        // Imports only type checkers read: they never run.
        StmtKind::If { test, orelse, .. } if crate::names::is_type_checking(test) => {
            for s in orelse {
                collect_imports(s, out);
            }
        }
        kind => kind.each_block(|block| {
            for s in block {
                collect_imports(s, out);
            }
        }),
    }
}
