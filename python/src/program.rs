//! The program: the files being checked and the first-party modules they import, each read and
//! parsed once, with every import statement resolved to the project's own modules.
//!
//! Imports resolve as Python would find them on disk: relative imports from the importing file's
//! package; absolute ones under the search roots of that file (its own folder, as for a script; the
//! folder above its top package; the project root, marked by `pyproject.toml`, `setup.py`,
//! `setup.cfg` or `.git`, and its `src/`). What resolves nowhere is third-party and goes through the
//! library tables.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::ffi::OsString;
use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

use rayon::prelude::*;

use gpulint_core::fsio::{FileState, Stamp};

use crate::known::{self, Digest, Knowledge, Known, Parsed};
use crate::lower::{self, SyntaxError};
use crate::model::{Module, Stmt, StmtKind};
use crate::notebook::{self, Notebook};
use crate::prefilter;
use crate::source::{Cells, FileId, LineCol, LineIndex, Location, Span};
use crate::text::Text;

/// A module of the program as imports see it: a `.py` file, a package (its `__init__.py`), or a
/// namespace package (a folder without one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

#[derive(Debug)]
pub struct Node {
    /// The file whose top level runs when the module is imported; `None` for a namespace package.
    pub file: Option<FileId>,
    /// Submodules some import in the program names, by their last name.
    pub children: HashMap<String, NodeId>,
}

/// Why a file has no module.
#[derive(Debug, Clone)]
pub enum FileError {
    Unreadable(String),
    /// The file has a NUL byte, or is not UTF-8: at this byte offset.
    Binary {
        reason: &'static str,
        offset: u32,
    },
    Syntax(SyntaxError),
    /// Another language's source: its own frontend checks it.
    Foreign,
}

#[derive(Debug)]
pub struct SourceFile {
    /// As given on the command line for checked files; relative to the working directory (or
    /// absolute) for files found through imports.
    pub path: PathBuf,
    /// The text (lossy for a file that is not UTF-8), for excerpts and positions.
    pub text: Text,
    /// Built on first use: most files never show a finding.
    lines: OnceLock<LineIndex>,
    pub module: Result<Module, FileError>,
    /// Where its comments are (suppression comments are read from these).
    pub comments: Vec<Span>,
    /// Named by the user (or found under a named folder), not only imported; or imported and
    /// not parsed (its error is reported).
    pub checked: bool,
    /// For a notebook, the cell each line of `text` comes from.
    pub cells: Option<Cells>,
    /// For a notebook, its JSON and where each cell's source sits in it (for fixes).
    pub notebook: Option<Box<Notebook>>,
    /// It runs as an interactive `__main__` (a notebook's kernel): a child started by spawn or
    /// forkserver does not import it, so it finds none of its definitions.
    pub interactive: bool,
    /// It sits in a test suite's folder (`tests/`, `test/`) below its project's root: see
    /// `libraries::processes::is_test_module`.
    pub in_test_folder: bool,
    /// Imports in this file, `(level, dotted name)`, and the modules they name, outermost first.
    imports: HashMap<(u32, String), Vec<NodeId>>,
    /// The program's files whose top level runs when this file's does (its module-level imports).
    runs_at_import: Vec<FileId>,
    /// The file imports a GPU library itself (for a file only scanned: may import one).
    gpu: bool,
    /// A leaf: a checked file no other module imports. Only its own analysis needs its model, so
    /// it is parsed there, once ([`Program::parse_leaf`]); until then its imports are those the
    /// scan read from its text.
    lazy: bool,
    /// Only scanned for imports, never parsed: it can reach no GPU library (its module is empty).
    /// A checked one is parsed for its syntax errors alone ([`Program::syntax_error`]).
    scanned_only: bool,
    /// The file, or a first-party module it imports, imports a GPU library.
    relevant: bool,
    /// Its text is its file's (not standard input's, an editor's buffer's, or a notebook's cells'),
    /// so it can be read again.
    read_from_disk: bool,
    /// What the file looked like when it was first read: a fix is written only if it still does.
    pub stamp: Option<Stamp>,
    /// The digest of the bytes first read from its file, and what the file system said of the file
    /// then (for the cache).
    pub digest: Option<Digest>,
    pub state: Option<FileState>,
    /// The digest of the text scanned or parsed (a notebook's cells' source, not its JSON).
    text_digest: Option<Digest>,
    /// What loading it found, kept for the cache when the build learns.
    learned: Known,
    /// Its model is an empty stand-in until [`Program::materialize`] parses it (see `known`).
    deferred: bool,
    /// Its model was parsed while loading, as the build learned (see [`SourceFile::learned`]).
    parsed_here: bool,
}

impl SourceFile {
    /// The digest of the text it was scanned or parsed from (when the build learned or knew).
    pub fn text_digest(&self) -> Option<Digest> {
        self.text_digest
    }

    /// What loading it found that the cache did not know (when the build learned): the scan, and
    /// what its parse gave, taken from its model.
    pub fn learned(&self) -> Known {
        let mut known = self.learned.clone();
        if let (true, Ok(module)) = (self.parsed_here, &self.module) {
            known.parse = Some(leaf_summary(module, &self.comments));
        }
        known
    }

    /// Where byte `offset` of the text is, as users count (in its cell for a notebook).
    /// A file not read yet: no text, no module.
    fn unread(path: PathBuf, checked: bool) -> SourceFile {
        SourceFile {
            path,
            text: Text::default(),
            lines: OnceLock::new(),
            module: Err(FileError::Unreadable("not read".into())),
            comments: Vec::new(),
            checked,
            cells: None,
            notebook: None,
            interactive: false,
            imports: HashMap::default(),
            runs_at_import: Vec::new(),
            gpu: false,
            lazy: false,
            scanned_only: false,
            relevant: false,
            read_from_disk: false,
            stamp: None,
            in_test_folder: false,
            digest: None,
            state: None,
            text_digest: None,
            learned: Known::default(),
            deferred: false,
            parsed_here: false,
        }
    }

    /// Where each line starts, built from the text on first use.
    pub fn lines(&self) -> &LineIndex {
        self.lines.get_or_init(|| LineIndex::new(&self.text))
    }

    pub fn location(&self, offset: u32) -> Location {
        Location::of(&self.text, self.lines(), self.cells.as_ref(), offset)
    }

    /// Where byte `offset` of the text is in the file as stored: its line and column there. For a
    /// script, [`SourceFile::location`]'s; for a notebook, the line of the `.ipynb` file's JSON
    /// where that character of its cell's `source` is written (what annotations on the file need).
    pub fn stored_line_col(&self, offset: u32) -> LineCol {
        self.notebook
            .as_ref()
            .and_then(|n| n.json_line_col(&self.text, self.lines(), offset))
            .unwrap_or_else(|| self.lines().line_col(&self.text, offset))
    }

    /// For a notebook, the cell holding byte `offset` of the text: its number and its bytes.
    pub fn cell_at(&self, offset: u32) -> Option<(u32, std::ops::Range<usize>)> {
        let cells = self.cells.as_ref()?;
        let line = self.lines().line_col(&self.text, offset).line;
        let (number, _) = cells.locate(line);
        let (first, next) = cells.lines_of(line);
        let start = self.lines().line_start(first).unwrap_or(0) as usize;
        let end = next
            .and_then(|n| self.lines().line_start(n))
            .map_or(self.text.len(), |e| e as usize);
        Some((
            number,
            start.min(self.text.len())..end.max(start).min(self.text.len()),
        ))
    }
}

/// Whether `path` names a Jupyter notebook.
pub fn is_notebook(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "ipynb")
}

#[derive(Debug, Default)]
pub struct Program {
    files: Vec<SourceFile>,
    nodes: Vec<Node>,
    /// Every name read, and every attribute name, in any file but the leaves.
    referenced: HashSet<String>,
    /// Those the leaves read besides, once they are parsed ([`Program::leaf_names`]).
    leaf_names: OnceLock<HashSet<String>>,
    /// Native extension modules of the project (another frontend's, by the name Python imports
    /// them by) whose initialisation at import initialises CUDA, and where.
    native: HashMap<String, Vec<gpulint_core::effect::CudaInitSite>>,
    /// What import resolution asked the file system, for a cache to tell whether it would resolve
    /// every import alike.
    probes: Vec<Probe>,
}

/// One answer of the file system that import resolution relied on.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Probe {
    /// A folder's listing: what the folder looked like before it was listed, and the digest of its
    /// entries (names and kinds, sorted); `None`: nothing is there.
    Listing {
        path: PathBuf,
        state: Option<FileState>,
        entries: Digest,
    },
    /// A folder that could not be listed: its entries were asked about one by one.
    Unlistable(PathBuf),
    /// A link followed, and what it led to (see [`Probe::kind`]).
    Link { path: PathBuf, kind: u8 },
    /// A file read (a project's `pyproject.toml`, for its package's name): its digest, if it could
    /// be read.
    Read {
        path: PathBuf,
        state: Option<FileState>,
        digest: Option<Digest>,
    },
}

impl Probe {
    /// What a link at `path` leads to now, as [`Probe::Link`] records it.
    pub fn link_kind(path: &Path) -> u8 {
        match std::fs::metadata(path) {
            Ok(meta) => kind_of_type(meta.file_type()) as u8,
            Err(_) => u8::MAX,
        }
    }

    /// The digest of `dir`'s entries now, as [`Probe::Listing`] records it; `None` where it cannot
    /// be listed.
    pub fn listing_digest(dir: &Path) -> Option<Digest> {
        list(dir).map(|entries| listing_digest(&entries))
    }
}

/// A file of a program restored from a cache ([`Program::restore`]).
pub struct Restored {
    pub path: PathBuf,
    pub checked: bool,
    pub notebook: bool,
    /// Where its comments are, as byte ranges (suppression comments are read from these).
    pub comments: Vec<(u32, u32)>,
    /// What the file looked like when the cache found it unchanged: a fix is written only if it
    /// still does.
    pub stamp: Option<Stamp>,
}

/// What to read: a file, or the text of one (standard input, tests).
pub enum Input {
    Path(PathBuf),
    Text {
        path: PathBuf,
        text: String,
    },
    /// Bytes read elsewhere (standard input): checked like a file's, NUL bytes and invalid UTF-8
    /// included.
    Bytes {
        path: PathBuf,
        bytes: Vec<u8>,
    },
    /// A path the walk could not enter, with the reason.
    Unreadable {
        path: PathBuf,
        reason: String,
    },
    /// The text an editor holds for a file, unsaved edits included: not checked, but read instead
    /// of the file where an import reaches it.
    Held {
        path: PathBuf,
        text: String,
    },
}

impl Program {
    /// Reads and parses `inputs` (the checked files) and every first-party module they import,
    /// transitively. Parsing runs on rayon's current pool.
    pub fn build(inputs: Vec<Input>) -> Program {
        Program::build_with_native(inputs, HashMap::default(), None)
    }

    /// [`Program::build`] for a project whose native extension modules (`native`, by module name)
    /// initialise CUDA when imported: a file importing one can reach CUDA, as one importing torch.
    /// Outside a project root, absolute imports are looked for up to `import_root` (an editor's
    /// workspace folder), else up to the folder holding every checked file.
    pub fn build_with_native(
        inputs: Vec<Input>,
        native: HashMap<String, Vec<gpulint_core::effect::CudaInitSite>>,
        import_root: Option<PathBuf>,
    ) -> Program {
        Program::build_knowing(inputs, native, import_root, None)
    }

    /// [`Program::build_with_native`], for a cache: texts `known` describes are neither scanned nor
    /// parsed (a parsed one is deferred, see [`crate::known`]), and what loading each file found is
    /// kept ([`Program::learned`]), with the answers of the file system that import resolution
    /// relied on ([`Program::probes`]).
    pub fn build_knowing(
        inputs: Vec<Input>,
        native: HashMap<String, Vec<gpulint_core::effect::CudaInitSite>>,
        import_root: Option<PathBuf>,
        known: Option<std::sync::Arc<Knowledge>>,
    ) -> Program {
        let mut builder = Builder {
            learn: known.is_some(),
            known,
            ..Builder::default()
        };
        builder.fs.record = builder.learn;
        builder.program.native = native;
        let checked = common_folder(inputs.iter().filter_map(|input| match input {
            Input::Path(path) | Input::Text { path, .. } | Input::Bytes { path, .. } => {
                Some(path.as_path())
            }
            Input::Unreadable { .. } | Input::Held { .. } => None,
        }));
        builder.boundary = import_root.map(|r| normalize(&r)).or(checked);
        let mut wave: Vec<(FileId, Source)> = Vec::new();
        for input in inputs {
            let (path, source) = match input {
                Input::Path(path) => (path, Source::Disk),
                Input::Text { path, text } => (path, Source::Bytes(text.into_bytes())),
                Input::Bytes { path, bytes } => (path, Source::Bytes(bytes)),
                Input::Unreadable { path, reason } => {
                    let key = builder.fs.identity(&path);
                    let id = builder.add_file(key, path, true);
                    builder.program.files[id.0 as usize].module =
                        Err(FileError::Unreadable(reason));
                    continue;
                }
                Input::Held { path, text } => {
                    let key = builder.fs.identity(&path);
                    builder.held.insert(key, text);
                    continue;
                }
            };
            let key = builder.fs.identity(&path);
            if !builder.by_path.contains_key(&key) {
                let id = builder.add_file(key, path, true);
                wave.push((id, source));
            }
        }
        // Every file is first scanned for imports, not parsed: most of a tree like the standard
        // library can never reach a GPU library. Each round parses the scanned files that are
        // relevant (their imports reach one) or that an analysis imports, until none is left.
        // A checked file no other file imports (a leaf) is not parsed here: its analysis parses it,
        // once, so a tree's leaves are never all held at once.
        let mut scanned: Vec<FileId> = Vec::new();
        while !wave.is_empty() {
            builder.load(wave, &mut scanned);
            builder.program.compute_relevance();
            let force = builder.to_parse(&scanned);
            scanned.retain(|id| !force.contains(id));
            let importers = builder.program.importers();
            wave = force
                .into_iter()
                .filter_map(|id| {
                    let imported = importers[id.0 as usize].iter().any(|i| *i != id.0);
                    let file = &mut builder.program.files[id.0 as usize];
                    let keep = !file.checked || imported;
                    if !keep && file.read_from_disk {
                        // A leaf read from a file: its analysis reads it again, so its text
                        // need not be held (nor packed and unpacked) until then.
                        file.text = Text::on_disk(&file.path);
                        file.lazy = true;
                        return None;
                    }
                    Some((id, Source::Scanned(file.text.take(), keep)))
                })
                .collect();
        }
        // A leaf that a module found later imports after all is parsed and held like the others.
        let mut late = builder.program.imported_files();
        late.retain(|f| builder.program.files[f.0 as usize].lazy);
        let late: Vec<(FileId, Source)> = late
            .into_iter()
            .map(|id| {
                let file = &mut builder.program.files[id.0 as usize];
                file.lazy = false;
                let source = match file.text.is_on_disk() {
                    true => Source::Reread,
                    false => Source::Scanned(file.text.take(), true),
                };
                (id, source)
            })
            .collect();
        if !late.is_empty() {
            builder.load(late, &mut scanned);
            builder.program.compute_relevance();
        }
        let mut probes = std::mem::take(&mut builder.fs.probes);
        let mut seen = HashSet::default();
        probes.retain(|p| seen.insert(p.clone()));
        builder.program.probes = probes;
        // An imported module that does not parse leaves part of the program unanalysed: it is
        // checked as if named, so its error is reported even when only its importer was.
        for file in &mut builder.program.files {
            if matches!(
                file.module,
                Err(FileError::Syntax(_) | FileError::Binary { .. })
            ) {
                file.checked = true;
            }
        }
        builder.program
    }

    /// A program of the files a cache recorded, in the same order (so with the same ids): for
    /// reporting the findings it kept, not for analysing (there are no models). A text is read from
    /// its file when a finding shows it; a notebook is read now, for its cells.
    pub fn restore(files: Vec<Restored>) -> Program {
        let mut program = Program::default();
        for (i, restored) in files.into_iter().enumerate() {
            let id = FileId(i as u32);
            let mut file = SourceFile::unread(restored.path, restored.checked);
            file.module = Err(FileError::Unreadable("not analysed in this run".into()));
            file.comments = restored
                .comments
                .iter()
                .map(|(start, end)| Span::new(id, *start, *end))
                .collect();
            file.stamp = restored.stamp;
            if restored.notebook {
                let read = read_text(&file.path)
                    .ok()
                    .and_then(|json| notebook::read(json).ok());
                if let Some(read) = read {
                    file.text = Text::pack(read.text);
                    file.cells = Some(read.cells);
                    file.notebook = Some(Box::new(read.notebook));
                    file.interactive = true;
                }
            } else {
                file.text = Text::on_disk(&file.path);
                file.read_from_disk = true;
            }
            program.files.push(file);
        }
        program
    }

    /// Adds a file another frontend checks (Rust), for positions, excerpts and suppression
    /// comments; `comments` are byte ranges in `text`.
    pub fn add_foreign(
        &mut self,
        path: PathBuf,
        text: String,
        comments: &[(u32, u32)],
        checked: bool,
    ) -> FileId {
        let id = FileId(self.files.len() as u32);
        self.files.push(SourceFile {
            text: text.into(),
            module: Err(FileError::Foreign),
            comments: comments
                .iter()
                .map(|(s, e)| Span::new(id, *s, *e))
                .collect(),
            ..SourceFile::unread(path, checked)
        });
        id
    }

    pub fn file(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    pub fn files(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files
            .iter()
            .enumerate()
            .map(|(i, f)| (FileId(i as u32), f))
    }

    pub fn module(&self, id: FileId) -> Option<&Module> {
        self.files.get(id.0 as usize)?.module.as_ref().ok()
    }

    /// Whether `name` is read (or is an attribute name) in a file other than the leaves, or, with
    /// `in_leaves`, in any file: a function by such a name has a caller somewhere.
    pub fn is_referenced(&self, name: &str, in_leaves: bool) -> bool {
        self.referenced.contains(name) || in_leaves && self.leaf_names().contains(name)
    }

    /// The names the leaves read that no other file does. A leaf's functions are called only from
    /// the leaf itself (no module imports it), but the leaves call into the other modules, whose
    /// analyses need these. Parsed here when no check supplied them ([`Program::add_leaf_names`]).
    pub fn leaf_names(&self) -> &HashSet<String> {
        self.leaf_names.get_or_init(|| {
            let lazy: Vec<FileId> = self
                .files()
                .filter(|(id, _)| self.is_lazy(*id))
                .map(|(id, _)| id)
                .collect();
            let names: Vec<Vec<String>> = lazy
                .par_iter()
                .filter_map(|id| {
                    let leaf = self.parse_leaf(*id)?.ok()?;
                    Some(self.names_only_in(&crate::names::referenced_names(&leaf.module)))
                })
                .collect();
            names.into_iter().flatten().collect()
        })
    }

    /// Of the names a leaf reads ([`crate::names::referenced_names`]), those no file but the
    /// leaves does.
    pub fn names_only_in(&self, names: &HashSet<&str>) -> Vec<String> {
        names
            .iter()
            .filter(|name| !self.referenced.contains(**name))
            .map(|name| name.to_string())
            .collect()
    }

    /// What the analyses of the leaves found while parsing them: each leaf's comments (for
    /// suppression comments) and the names the leaves read that no other file does. Call it
    /// before analysing the other files, as a check does.
    pub fn add_leaf_names(&mut self, names: HashSet<String>, comments: Vec<(FileId, Vec<Span>)>) {
        for (id, spans) in comments {
            self.files[id.0 as usize].comments = spans;
        }
        let _ = self.leaf_names.set(names);
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.0 as usize]
    }

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
    fn importers(&self) -> Vec<Vec<u32>> {
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
            let source = &self.files[site.span.file.0 as usize].path;
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

    /// For each file, a digest of everything the program holds of it that an analysis reading it
    /// depends on, besides its model (whose text its digest covers): its path and text, how its
    /// imports resolved (the modules each names, and the submodules known of those), which of its
    /// imports run at import time, and its flags. Equal digests for every file an analysis can
    /// reach mean the program gives that analysis the same answers.
    pub fn structure_digests(&self) -> Vec<Digest> {
        use std::hash::Hasher;
        let node_digests: Vec<u64> = self
            .nodes
            .par_iter()
            .map(|node| {
                let mut h = xxhash_rust::xxh3::Xxh3::new();
                self.hash_node_file(node.file, &mut h);
                let mut children: Vec<(&String, &NodeId)> = node.children.iter().collect();
                children.sort_unstable_by(|a, b| a.0.cmp(b.0));
                for (name, child) in children {
                    h.write(name.as_bytes());
                    h.write_u8(0);
                    self.hash_node_file(self.nodes[child.0 as usize].file, &mut h);
                }
                h.finish()
            })
            .collect();
        self.files
            .par_iter()
            .map(|file| {
                let mut h = xxhash_rust::xxh3::Xxh3::new();
                h.write(file.path.as_os_str().as_encoded_bytes());
                h.write_u8(0);
                h.write_u128(file.digest.unwrap_or_default());
                h.write_u128(file.text_digest.unwrap_or_default());
                let flags = [
                    file.checked,
                    file.relevant,
                    file.lazy,
                    file.interactive,
                    file.in_test_folder,
                    file.notebook.is_some(),
                    file.read_from_disk,
                ];
                for flag in flags {
                    h.write_u8(flag as u8);
                }
                match &file.module {
                    Ok(_) => h.write_u8(0),
                    Err(error) => h.write(format!("{error:?}").as_bytes()),
                }
                let mut imports: Vec<(&(u32, String), &Vec<NodeId>)> =
                    file.imports.iter().collect();
                imports.sort_unstable_by(|a, b| a.0.cmp(b.0));
                for ((level, dotted), chain) in imports {
                    h.write_u32(*level);
                    h.write(dotted.as_bytes());
                    h.write_u8(0);
                    for node in chain {
                        h.write_u64(node_digests[node.0 as usize]);
                    }
                    h.write_u8(1);
                }
                for f in &file.runs_at_import {
                    self.hash_node_file(Some(*f), &mut h);
                }
                h.digest128()
            })
            .collect()
    }

    fn hash_node_file(&self, file: Option<FileId>, h: &mut impl std::hash::Hasher) {
        match file {
            Some(f) => {
                h.write(self.files[f.0 as usize].path.as_os_str().as_encoded_bytes());
                h.write_u8(0);
            }
            None => h.write_u8(1),
        }
    }

    /// What import resolution asked the file system (when the build learned), once each.
    pub fn probes(&self) -> &[Probe] {
        &self.probes
    }

    /// The digest of the text `id` was scanned or parsed from (when the build learned or knew).
    pub fn text_digest(&self, id: FileId) -> Option<Digest> {
        self.files[id.0 as usize].text_digest
    }

    /// Whether `id`'s model is a stand-in until [`Program::materialize`] parses it.
    pub fn is_deferred(&self, id: FileId) -> bool {
        self.files[id.0 as usize].deferred
    }

    /// Parses the deferred files among `ids`, in parallel, so that analyses can read them. `false`
    /// when a text is no longer the one the program was built from (its file changed since): its
    /// model is then of the new text, and the findings should not be kept.
    pub fn materialize(&mut self, ids: &[FileId]) -> bool {
        let todo: Vec<FileId> = ids
            .iter()
            .copied()
            .filter(|id| self.files[id.0 as usize].deferred)
            .collect();
        let parsed: Vec<(FileId, Result<Module, FileError>, bool)> = todo
            .par_iter()
            .with_max_len(1)
            .map(|&id| {
                let file = &self.files[id.0 as usize];
                let text = file.text.unpacked();
                let same = file
                    .text_digest
                    .is_none_or(|d| known::digest(text.as_bytes()) == d);
                let module = lower::parse(&text, id)
                    .map(|lowered| lowered.module)
                    .map_err(FileError::Syntax);
                (id, module, same)
            })
            .collect();
        let mut all_same = true;
        for (id, module, same) in parsed {
            let file = &mut self.files[id.0 as usize];
            file.module = module;
            file.deferred = false;
            all_same &= same;
        }
        all_same
    }

    /// Moves the native modules' sites to the files' final ids, once the other frontend's files
    /// are in the program.
    pub fn remap_native(&mut self, id: impl Fn(FileId) -> FileId) {
        for site in self.native.values_mut().flatten() {
            site.span = Span::new(id(site.span.file), site.span.start, site.span.end);
        }
    }

    /// Whether `file` runs as an interactive `__main__` (see [`SourceFile::interactive`]).
    pub fn is_interactive(&self, file: FileId) -> bool {
        self.files
            .get(file.0 as usize)
            .is_some_and(|f| f.interactive)
    }

    /// Whether the file is a leaf, parsed by its own analysis (see [`Program::parse_leaf`]).
    pub fn is_lazy(&self, id: FileId) -> bool {
        self.files[id.0 as usize].lazy
    }

    /// A leaf's model and comments, parsed from its text (see [`SourceFile`]'s `lazy`); `None` for
    /// any other file.
    pub fn parse_leaf(&self, id: FileId) -> Option<Result<lower::Lowered, FileError>> {
        self.parse_leaf_checked(id).map(|(parsed, _)| parsed)
    }

    /// [`Program::parse_leaf`], and whether the text parsed is the one scanned (always, where the
    /// build kept no digest).
    pub fn parse_leaf_checked(
        &self,
        id: FileId,
    ) -> Option<(Result<lower::Lowered, FileError>, bool)> {
        let file = self.files.get(id.0 as usize)?;
        if !file.lazy {
            return None;
        }
        let same = |text: &str| {
            file.text_digest
                .is_none_or(|d| known::digest(text.as_bytes()) == d)
        };
        if !file.text.is_on_disk() {
            let text = file.text.unpacked();
            return Some((
                lower::parse(&text, id).map_err(FileError::Syntax),
                same(&text),
            ));
        }
        // Read again: it may have changed or gone since the scan, which this reports like any
        // file that cannot be read. What is read is what is analysed.
        Some(match read_text(&file.path) {
            Ok(text) => (
                lower::parse(&text, id).map_err(FileError::Syntax),
                same(&text),
            ),
            Err((_, error)) => (Err(error), false),
        })
    }

    /// The syntax error of a checked file that was only scanned (it can reach no GPU library, so
    /// nothing else is looked for in it), parsed now and its tree dropped; `None` for every other
    /// file, whose parse (while loading, or [`Program::parse_leaf`]) reports its own.
    pub fn syntax_error(&self, id: FileId) -> Option<FileError> {
        if !self.checked_for_syntax_only(id) {
            return None;
        }
        let file = &self.files[id.0 as usize];
        lower::syntax_error(&file.text.unpacked(), id).map(FileError::Syntax)
    }

    /// Whether `id` is a checked file that was only scanned: its check parses it for its syntax
    /// alone ([`Program::syntax_error`]).
    pub fn checked_for_syntax_only(&self, id: FileId) -> bool {
        self.files.get(id.0 as usize).is_some_and(|file| {
            file.checked && file.scanned_only && !file.lazy && file.module.is_ok()
        })
    }

    /// Whether analysing a leaf can find anything, judged from its model: [`Program::is_relevant`]
    /// judged it from the imports the scan read, which may be more than it has.
    pub fn leaf_is_relevant(&self, id: FileId, module: &Module) -> bool {
        let wanted = wanted_imports(module);
        crate::names::imports_gpu_library(module)
            || self.imports_native(&wanted.imports)
            || wanted.imports.iter().any(|(level, dotted)| {
                self.resolve(id, *level, dotted).is_some_and(|chain| {
                    chain.iter().any(|n| {
                        self.nodes[n.0 as usize]
                            .file
                            .is_some_and(|f| f != id && self.files[f.0 as usize].relevant)
                    })
                })
            })
    }

    fn imports_native(&self, imports: &[(u32, String)]) -> bool {
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
    /// (transitively), imports a package through which CUDA can enter the program.
    pub fn is_relevant(&self, file: FileId) -> bool {
        self.files[file.0 as usize].relevant
    }

    /// From each file's own GPU imports (set while reading), the files that import one transitively.
    fn compute_relevance(&mut self) {
        // From scratch: a scanned file's imports, read from its text, may be more than its parsed
        // ones. Importing a relevant module makes the importer relevant: walk the import edges
        // backwards from the files that import a GPU library.
        let importers = self.importers();
        let mut todo = Vec::new();
        for (i, file) in self.files.iter_mut().enumerate() {
            file.relevant = file.gpu;
            if file.gpu {
                todo.push(i);
            }
        }
        while let Some(f) = todo.pop() {
            for &importer in &importers[f] {
                let file = &mut self.files[importer as usize];
                if !file.relevant {
                    file.relevant = true;
                    todo.push(importer as usize);
                }
            }
        }
    }
}

/// Files loaded per step of a wave (see `Builder::load`): small enough that the last step's
/// imports, resolved after every file is read, are few; large enough to split across threads.
const LOAD_STEP: usize = 128;

/// Files larger than this are not read: reported, not analysed. Python sources this large are
/// generated (tables, bindings); reading them whole would make one file dominate the run.
pub use gpulint_core::fsio::MAX_FILE_BYTES;

/// Where a file's text comes from.
enum Source {
    Disk,
    Bytes(Vec<u8>),
    /// Read and scanned before (valid UTF-8): parse it now if `true`; if `false` it is a leaf,
    /// which its own analysis parses (its text is only packed).
    Scanned(String, bool),
    /// Scanned before, its text not held: read it again and parse it.
    Reread,
}

/// Reads (or takes) one file's text, then parses it, or only scans it when it names no GPU package.
/// A parsed file's text is not held when it came from the file (`from_disk`): it is read again
/// where a finding in it is shown. With `learn`, what the scan or parse found is kept for the
/// cache; with `known`, a text it describes is not scanned or parsed again (see [`crate::known`]).
fn load_one(
    id: FileId,
    path: &Path,
    source: Source,
    from_disk: bool,
    learn: bool,
    known: Option<&Knowledge>,
) -> Loaded {
    let mut observed = None;
    // The digest of the bytes read, while the text is still those bytes.
    let mut text_digest = None;
    let (decoded, keep) = match source {
        Source::Scanned(text, false) => {
            return Loaded {
                text: Text::pack(text),
                lazy: true,
                ..Loaded::empty(id)
            }
        }
        Source::Scanned(text, keep) => (Ok(text), Some(keep)),
        Source::Bytes(bytes) => (decode(bytes), None),
        Source::Disk | Source::Reread => {
            let (read, seen) = read_observed(path, learn);
            if let Some((_, _, digest)) = &seen {
                text_digest = *digest;
            }
            observed = seen;
            (read, matches!(source, Source::Reread).then_some(true))
        }
    };
    let (mut text, mut module) = match decoded {
        Ok(text) => (text, None),
        Err((text, error)) => (text, Some(Err(error))),
    };
    let mut read_notebook = None;
    if keep.is_none() && module.is_none() && is_notebook(path) {
        text_digest = None;
        match notebook::read(std::mem::take(&mut text)) {
            Ok(read) => {
                text = read.text;
                read_notebook = Some((read.cells, Box::new(read.notebook)));
            }
            Err(reason) => {
                module = Some(Err(FileError::Unreadable(format!(
                    "invalid notebook: {reason}"
                ))))
            }
        }
    }
    let mut loaded = Loaded {
        notebook: read_notebook,
        stamp: observed.as_ref().map(|(stamp, _, _)| *stamp),
        state: observed.as_ref().map(|(_, state, _)| *state),
        digest: observed.and_then(|(_, _, digest)| digest),
        ..Loaded::empty(id)
    };
    if let Some(error) = module {
        loaded.module = error;
        loaded.text = text.into();
        return loaded;
    }
    let text_digest = (learn || known.is_some())
        .then(|| text_digest.unwrap_or_else(|| known::digest(text.as_bytes())));
    loaded.text_digest = text_digest;
    let known = known.zip(text_digest).and_then(|(k, d)| k.get(&d));
    if keep.is_none() {
        let scan = match known.and_then(|k| k.scan.clone()) {
            Some(scan) => scan,
            // Characters Python folds to ASCII could spell an import the scan cannot read.
            None => (!prefilter::spells_ascii_with_other_characters(&text))
                .then(|| prefilter::imports(&text))
                .flatten(),
        };
        if learn && known.is_none_or(|k| k.scan.is_none()) {
            loaded.learned.scan = Some(scan.clone());
        }
        if let Some(imports) = scan {
            loaded.scanned = true;
            loaded.gpu = imports
                .iter()
                .any(|(level, dotted)| *level == 0 && crate::names::is_gpu_module(dotted));
            loaded.wanted = Wanted {
                imports,
                top_level: 0,
            };
            loaded.text = text.into();
            return loaded;
        }
    }
    match known.and_then(|k| k.parse.as_ref()) {
        Some(parsed) => {
            // Everything the loader takes from the model, without the model: parsed later if an
            // analysis needs it.
            loaded.deferred = true;
            loaded.comments = parsed
                .comments
                .iter()
                .map(|(start, end)| Span::new(id, *start, *end))
                .collect();
            // The names are taken from what the cache knows when the program takes this in.
            loaded.names_known = text_digest;
            loaded.gpu = parsed.gpu;
            loaded.wanted = Wanted {
                imports: parsed.imports.clone(),
                top_level: parsed.top_level,
            };
        }
        None => {
            let (module, comments) = parse(&text, id);
            loaded.comments = comments;
            if let Ok(m) = &module {
                let names = crate::names::referenced_names(m);
                loaded.names = names.into_iter().map(str::to_string).collect();
                loaded.gpu = crate::names::imports_gpu_library(m);
                loaded.wanted = wanted_imports(m);
                // What the cache keeps of this parse is taken from the model when it is written
                // (`SourceFile::learned`), not held twice meanwhile.
                loaded.parsed = learn;
            }
            loaded.module = module;
        }
    }
    loaded.text = match from_disk && loaded.notebook.is_none() {
        true => Text::on_disk(path),
        false => Text::pack(text),
    };
    loaded
}

/// What a parse gave, as the cache keeps it.
fn summary(wanted: &Wanted, gpu: bool, names: &[String], comments: &[Span]) -> Parsed {
    let mut names = names.to_vec();
    names.sort_unstable();
    Parsed {
        imports: wanted.imports.clone(),
        top_level: wanted.top_level,
        gpu,
        names,
        comments: comments.iter().map(|c| (c.start, c.end)).collect(),
    }
}

/// What a leaf's parse gives the cache: as [`summary`], from its model and comments.
pub fn leaf_summary(module: &Module, comments: &[Span]) -> Parsed {
    let names: Vec<String> = crate::names::referenced_names(module)
        .into_iter()
        .map(str::to_string)
        .collect();
    let gpu = crate::names::imports_gpu_library(module);
    summary(&wanted_imports(module), gpu, &names, comments)
}

/// [`read_stamped`], with what the file system said of the file and, with `digest`, the digest
/// of its bytes.
#[allow(clippy::type_complexity)]
fn read_observed(
    path: &Path,
    digest: bool,
) -> (
    Result<String, (String, FileError)>,
    Option<(Stamp, FileState, Option<Digest>)>,
) {
    match read_source(path) {
        Ok((bytes, meta)) => {
            let digest = digest.then(|| known::digest(&bytes));
            let seen = (Stamp::of(&meta), FileState::of(&meta), digest);
            (decode(bytes), Some(seen))
        }
        Err(reason) => (Err((String::new(), FileError::Unreadable(reason))), None),
    }
}

/// The bytes of a regular file of at most [`MAX_FILE_BYTES`]. A FIFO, a device (a link to
/// `/dev/zero`), a socket or a larger file is refused with the reason, never read or waited on.
fn read_source(path: &Path) -> Result<(Vec<u8>, std::fs::Metadata), String> {
    use gpulint_core::fsio::ReadError;
    match gpulint_core::fsio::read_regular_state(path, MAX_FILE_BYTES) {
        Ok(read) => Ok(read),
        Err(ReadError::NotRegular(kind)) => Err(format!("not a regular file ({kind}): skipped")),
        Err(ReadError::TooLarge(_)) => Err(too_large()),
        Err(ReadError::Io(e)) => Err(e.to_string()),
    }
}

/// Everything `reader` gives, unless it gives more than [`MAX_FILE_BYTES`] (`None`): never more
/// than that is read. `expected` sizes the buffer.
pub fn read_bounded(
    reader: impl std::io::Read,
    expected: usize,
) -> std::io::Result<Option<Vec<u8>>> {
    gpulint_core::fsio::read_bounded(reader, expected, MAX_FILE_BYTES)
}

fn too_large() -> String {
    format!(
        "larger than {} MiB: skipped (generated code?)",
        MAX_FILE_BYTES >> 20
    )
}

/// A file's text, or why it cannot be read or decoded (with the text, lossy, where there is one).
fn read_text(path: &Path) -> Result<String, (String, FileError)> {
    read_stamped(path).0
}

/// [`read_text`], and the file's stamp where it could be read.
fn read_stamped(path: &Path) -> (Result<String, (String, FileError)>, Option<Stamp>) {
    match read_source(path) {
        Ok((bytes, meta)) => (decode(bytes), Some(Stamp::of(&meta))),
        Err(reason) => (Err((String::new(), FileError::Unreadable(reason))), None),
    }
}

/// A file's text as [`read_text`] makes it, lossy where the file is not valid UTF-8; empty where
/// it cannot be read (the analysis that read it first reported why).
pub(crate) fn read_lossy(path: &Path) -> String {
    match read_text(path) {
        Ok(text) | Err((text, _)) => text,
    }
}

/// Source text from bytes; a NUL byte or invalid UTF-8 is reported at its offset, with the text
/// (lossy) kept to show it.
fn decode(bytes: Vec<u8>) -> Result<String, (String, FileError)> {
    if let Some(nul) = memchr::memchr(0, &bytes) {
        let offset = String::from_utf8_lossy(&bytes[..nul]).len() as u32;
        let text = String::from_utf8_lossy(&bytes).replace('\0', " ");
        let reason = "the file contains a NUL byte";
        return Err((text, FileError::Binary { reason, offset }));
    }
    String::from_utf8(bytes).map_err(|err| {
        let offset = err.utf8_error().valid_up_to() as u32;
        let text = String::from_utf8_lossy(err.as_bytes()).into_owned();
        let reason = "the file is not valid UTF-8";
        (text, FileError::Binary { reason, offset })
    })
}

/// The module, and the spans of its comments (for suppression comments).
fn parse(text: &str, id: FileId) -> (Result<Module, FileError>, Vec<Span>) {
    match lower::parse(text, id) {
        Ok(lowered) => (Ok(lowered.module), lowered.comments),
        Err(err) => (Err(FileError::Syntax(err)), Vec::new()),
    }
}

/// One file as a parsing worker returns it.
struct Loaded {
    id: FileId,
    text: Text,
    module: Result<Module, FileError>,
    comments: Vec<Span>,
    /// The names it reads or uses as attributes.
    names: Vec<String>,
    /// It imports a GPU library itself.
    gpu: bool,
    /// Only scanned for imports, not parsed.
    scanned: bool,
    /// A leaf, not parsed (see [`SourceFile::lazy`]).
    lazy: bool,
    wanted: Wanted,
    /// A notebook's cells and JSON.
    notebook: Option<(Cells, Box<Notebook>)>,
    /// The file's stamp, where this load read it.
    stamp: Option<Stamp>,
    /// What the file system said of it then, and the digest of its bytes (when learning).
    state: Option<FileState>,
    digest: Option<Digest>,
    /// The digest of the text scanned or parsed (when learning, or knowing).
    text_digest: Option<Digest>,
    learned: Known,
    /// Its parse was taken from what the cache knows: no model yet.
    deferred: bool,
    /// The names it reads are those the cache knows of the text with this digest.
    names_known: Option<Digest>,
    /// Parsed here (not deferred), while learning.
    parsed: bool,
}

impl Loaded {
    /// A file with an empty module and nothing found yet.
    fn empty(id: FileId) -> Loaded {
        Loaded {
            id,
            text: Text::default(),
            module: Ok(Module {
                file: id,
                ..Module::default()
            }),
            comments: Vec::new(),
            names: Vec::new(),
            gpu: false,
            scanned: false,
            lazy: false,
            wanted: Wanted::default(),
            notebook: None,
            stamp: None,
            state: None,
            digest: None,
            text_digest: None,
            learned: Known::default(),
            deferred: false,
            names_known: None,
            parsed: false,
        }
    }
}

#[derive(Default)]
struct Builder {
    program: Program,
    /// Keep what loading each file found, for the cache.
    learn: bool,
    /// What the cache knows of texts, by digest.
    known: Option<std::sync::Arc<Knowledge>>,
    by_path: HashMap<PathBuf, FileId>,
    nodes_by_path: HashMap<PathBuf, NodeId>,
    roots: HashMap<PathBuf, Vec<PathBuf>>,
    /// The folder holding every checked file: outside a project (no `pyproject.toml`, `.git`...),
    /// absolute imports are looked for in the folders up to it, never in the working directory,
    /// so that findings depend on what is checked, not on where the check is run from.
    boundary: Option<PathBuf>,
    /// Resolved imports, by the importer's folder (an index into `resolved`), then by the import
    /// as Python spells it (`..a.b`): files of one folder resolve imports alike.
    folders: HashMap<PathBuf, usize>,
    resolved: Vec<HashMap<String, Option<Vec<NodeId>>>>,
    fs: Fs,
    /// Editors' texts of files (`Input::Held`), by identity: an import that reaches one reads it.
    held: HashMap<PathBuf, String>,
}

impl Builder {
    /// Loads the files of `wave` in parallel (see [`load_one`]), resolves the imports of those
    /// parsed, and goes on with the first-party modules they import until none is new. A wave is
    /// loaded in steps: this thread takes in one step's files (resolving their imports, which
    /// shares the folder caches and so runs on one thread) while the others load the next step's.
    fn load(&mut self, mut wave: Vec<(FileId, Source)>, scanned: &mut Vec<FileId>) {
        while !wave.is_empty() {
            let mut steps: Vec<Vec<(FileId, PathBuf, Source, bool)>> = Vec::new();
            for (i, (id, source)) in std::mem::take(&mut wave).into_iter().enumerate() {
                if i % LOAD_STEP == 0 {
                    steps.push(Vec::with_capacity(LOAD_STEP));
                }
                let file = &mut self.program.files[id.0 as usize];
                file.read_from_disk |= matches!(source, Source::Disk);
                let from_disk = file.read_from_disk;
                let path = file.path.clone();
                steps
                    .last_mut()
                    .expect("pushed above")
                    .push((id, path, source, from_disk));
            }
            let mut ready: Vec<Loaded> = Vec::new();
            let (learn, known) = (self.learn, self.known.clone());
            for step in steps.into_iter().chain([Vec::new()]) {
                let ((), loaded) = rayon::join(
                    || {
                        for loaded in ready.drain(..) {
                            self.take_in(loaded, scanned, &mut wave);
                        }
                    },
                    || {
                        // One file a job, so that no thread finishes a run of files alone.
                        step.into_par_iter()
                            .with_max_len(1)
                            .map(|(id, path, source, from_disk)| {
                                load_one(id, &path, source, from_disk, learn, known.as_deref())
                            })
                            .collect::<Vec<_>>()
                    },
                );
                ready = loaded;
            }
        }
    }

    /// Keeps what loading one file found, and queues the new files its imports name.
    fn take_in(
        &mut self,
        loaded: Loaded,
        scanned: &mut Vec<FileId>,
        wave: &mut Vec<(FileId, Source)>,
    ) {
        let id = loaded.id;
        self.program.referenced.extend(loaded.names);
        let known = loaded
            .names_known
            .and_then(|d| self.known.as_ref()?.get(&d)?.parse.as_ref());
        for name in known.iter().flat_map(|p| &p.names) {
            if !self.program.referenced.contains(name) {
                self.program.referenced.insert(name.clone());
            }
        }
        let file = &mut self.program.files[id.0 as usize];
        file.text = loaded.text;
        // The first read's: a file read again (a leaf, a scanned file parsed later) that changed
        // meanwhile no longer matches it, and a fix made from either read is refused.
        file.stamp = file.stamp.or(loaded.stamp);
        file.state = file.state.or(loaded.state);
        file.digest = file.digest.or(loaded.digest);
        file.text_digest = file.text_digest.or(loaded.text_digest);
        file.learned.merge(loaded.learned);
        if loaded.lazy {
            // A leaf keeps what the scan found (imports, GPU imports) until it is parsed.
            file.lazy = true;
            return;
        }
        if let Some((cells, notebook)) = loaded.notebook {
            file.cells = Some(cells);
            file.notebook = Some(notebook);
            file.interactive = true;
            file.read_from_disk = false;
        }
        file.module = loaded.module;
        file.comments = loaded.comments;
        file.deferred = loaded.deferred;
        file.parsed_here = loaded.parsed;
        let imports_native = self.program.imports_native(&loaded.wanted.imports);
        let file = &mut self.program.files[id.0 as usize];
        file.gpu = loaded.gpu || imports_native;
        file.lazy = false;
        file.scanned_only = loaded.scanned;
        if loaded.scanned {
            scanned.push(id);
        }
        for new in self.resolve_imports(id, loaded.wanted) {
            wave.push((new, self.source_of(new)));
        }
    }

    /// Where an imported file's text comes from: the editor's, when it holds the file.
    fn source_of(&mut self, id: FileId) -> Source {
        if self.held.is_empty() {
            return Source::Disk;
        }
        let key = self.fs.identity(&self.program.files[id.0 as usize].path);
        match self.held.remove(&key) {
            Some(text) => Source::Bytes(text.into_bytes()),
            None => Source::Disk,
        }
    }

    /// The scanned files to parse now: the relevant ones (their imports, read from the text, reach
    /// a GPU library) and those an analysis of a relevant file imports.
    fn to_parse(&self, scanned: &[FileId]) -> HashSet<FileId> {
        if scanned.is_empty() {
            return HashSet::default();
        }
        let mut force: HashSet<FileId> = self.program.imported_files().into_iter().collect();
        force.extend(
            self.program
                .files()
                .filter(|(_, f)| f.relevant)
                .map(|(id, _)| id),
        );
        scanned
            .iter()
            .copied()
            .filter(|id| force.contains(id))
            .collect()
    }

    fn add_file(&mut self, key: PathBuf, shown: PathBuf, checked: bool) -> FileId {
        let id = FileId(self.program.files.len() as u32);
        let mut file = SourceFile::unread(shown, checked);
        file.in_test_folder = self.in_test_folder(&key);
        self.program.files.push(file);
        self.by_path.insert(key, id);
        id
    }

    /// Whether a folder between `path` and its project's root (or the checked folder, outside a
    /// project) is a test suite's: folders above the project say nothing of it.
    fn in_test_folder(&mut self, path: &Path) -> bool {
        for dir in path.ancestors().skip(1) {
            if Some(dir) == self.boundary.as_deref() || is_project_root(&mut self.fs, dir) {
                return false;
            }
            let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            if crate::libraries::processes::TEST_FOLDERS.contains(&name) {
                return true;
            }
        }
        false
    }

    /// Resolves every import in `id`; returns the files it found that are not yet in the program.
    fn resolve_imports(&mut self, id: FileId, wanted: Wanted) -> Vec<FileId> {
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
    fn resolve(
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
        let roots = self.roots_of(importer);
        roots
            .iter()
            .find_map(|root| self.chain_if_first_party(root, &parts))
            .and_then(|root| self.chain(&root, &parts, found))
    }

    /// `root` if `parts` name a first-party module under it: a file all the way down, or a regular
    /// package at the top (a bare folder named like a library, `datasets/`, is data, not code).
    fn chain_if_first_party(&mut self, root: &Path, parts: &[&str]) -> Option<PathBuf> {
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
    fn chain(
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

/// The deepest folder holding every one of `paths` (normalised), if there is one.
fn common_folder<'a>(paths: impl Iterator<Item = &'a Path>) -> Option<PathBuf> {
    let mut common: Option<PathBuf> = None;
    for path in paths {
        let folder = normalize(path).parent()?.to_path_buf();
        common = Some(match common {
            None => folder,
            Some(c) => {
                let mut shared = PathBuf::new();
                for (a, b) in c.components().zip(folder.components()) {
                    if a != b {
                        break;
                    }
                    shared.push(a);
                }
                shared
            }
        });
    }
    common
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

/// The file-system questions import resolution asks, answered from one listing per folder (a
/// tree's imports ask the same folders again and again).
#[derive(Default)]
struct Fs {
    /// Keyed by the folder's path as bytes: hashing a `Path` splits it into components each time,
    /// and import resolution asks about 200,000 paths on transformers.
    listings: HashMap<Box<[u8]>, Option<HashMap<OsString, Kind>>>,
    canonical: HashMap<PathBuf, PathBuf>,
    /// Keep the answers resolution relies on ([`Probe`]), for the cache.
    record: bool,
    probes: Vec<Probe>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum Kind {
    File,
    Dir,
    Link,
    Other,
}

impl Fs {
    /// The entry `path` names, as its folder's listing has it (a link is not followed). A folder
    /// that cannot be listed is asked about the one path instead.
    fn entry(&mut self, path: &Path) -> Option<Kind> {
        let (dir, name) = split_name(path)?;
        let key = dir.as_os_str().as_encoded_bytes();
        let listing = match self.listings.get(key) {
            Some(listing) => listing,
            None => {
                // A folder its parent's listing does not show (a module name tried as a package)
                // holds nothing: it is not opened.
                let listing = match self.entry(dir) {
                    None | Some(Kind::File | Kind::Other) if dir.file_name().is_some() => {
                        Some(HashMap::default())
                    }
                    _ => self.list(dir),
                };
                self.listings.entry(key.into()).or_insert(listing)
            }
        };
        match listing {
            Some(listing) => listing.get(name).copied(),
            None => std::fs::symlink_metadata(path)
                .ok()
                .map(|m| kind_of_type(m.file_type())),
        }
    }

    /// What `path` is, links followed; `None` when nothing is there (a broken link included).
    fn kind(&mut self, path: &Path) -> Option<Kind> {
        match self.entry(path)? {
            // Followed each time: links are rare, and their targets may be anywhere.
            Kind::Link => {
                let kind = std::fs::metadata(path)
                    .ok()
                    .map(|m| kind_of_type(m.file_type()));
                if self.record {
                    self.probes.push(Probe::Link {
                        path: path.to_path_buf(),
                        kind: kind.map_or(u8::MAX, |k| k as u8),
                    });
                }
                kind
            }
            kind => Some(kind),
        }
    }

    fn is_file(&mut self, path: &Path) -> bool {
        self.kind(path) == Some(Kind::File)
    }

    /// [`list`], keeping what the folder looked like for the cache.
    fn list(&mut self, dir: &Path) -> Option<HashMap<OsString, Kind>> {
        if !self.record {
            return list(dir);
        }
        // Looked at before the listing: a change made after it changes this.
        let state = std::fs::metadata(dir).ok().map(|m| FileState::of(&m));
        let listing = list(dir);
        self.probes.push(match &listing {
            Some(entries) => Probe::Listing {
                path: dir.to_path_buf(),
                state,
                entries: listing_digest(entries),
            },
            None => Probe::Unlistable(dir.to_path_buf()),
        });
        listing
    }

    fn is_dir(&mut self, path: &Path) -> bool {
        match path.file_name() {
            Some(_) => self.kind(path) == Some(Kind::Dir),
            None => path.is_dir(),
        }
    }

    fn exists(&mut self, path: &Path) -> bool {
        self.kind(path).is_some()
    }

    /// What makes two paths one file or folder: symbolic links resolved (so `pkg/a -> .` does not
    /// make `pkg/a/a/a/...` new modules, and a link to a checked file is that file), falling back
    /// to the normalized path. The folder is resolved once; the name only when it is a link itself.
    fn identity(&mut self, path: &Path) -> PathBuf {
        let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
            return canonical(path);
        };
        if matches!(name.to_str(), Some("." | "..")) || self.entry(path) == Some(Kind::Link) {
            return canonical(path);
        }
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        if let Some(known) = self.canonical.get(dir) {
            return known.join(name);
        }
        let resolved = canonical(dir);
        let out = resolved.join(name);
        self.canonical.insert(dir.to_path_buf(), resolved);
        out
    }
}

/// `path`'s folder (`.` for a bare name) and last name, as `Path::parent` and `Path::file_name`
/// give them; on Unix a path with no `.`, `..` or doubled or trailing `/` at its end is split at
/// its last `/` without walking its components (import resolution splits 200,000 paths).
fn split_name(path: &Path) -> Option<(&Path, &std::ffi::OsStr)> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let bytes = path.as_os_str().as_bytes();
        let (dir, name) = match bytes.iter().rposition(|b| *b == b'/') {
            Some(i) => (&bytes[..i], &bytes[i + 1..]),
            None => (&b"."[..], bytes),
        };
        let plain = !matches!(name, b"" | b"." | b"..")
            && !dir.is_empty()
            && !dir.ends_with(b"/")
            && !dir.ends_with(b"/.");
        if plain {
            let dir = std::ffi::OsStr::from_bytes(dir);
            return Some((Path::new(dir), std::ffi::OsStr::from_bytes(name)));
        }
    }
    let name = path.file_name()?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Some((dir, name))
}

/// The digest of a folder's entries, names and kinds, in name order: of those resolution can ask
/// about. A regular file matters only as a module (`*.py`) or a project's marker; a hidden entry
/// names no module, so only `.git` among them counts (a cache's own folder, an editor's swap file
/// come and go without changing how anything resolves).
fn listing_digest(entries: &HashMap<OsString, Kind>) -> Digest {
    let matters = |name: &OsString, kind: &Kind| {
        let name = name.as_encoded_bytes();
        if name == b".git" {
            return true;
        }
        if name.starts_with(b".") {
            return false;
        }
        *kind != Kind::File
            || name.ends_with(b".py")
            || [&b"pyproject.toml"[..], b"setup.cfg"].contains(&name)
    };
    let mut sorted: Vec<(&OsString, &Kind)> =
        entries.iter().filter(|(n, k)| matters(n, k)).collect();
    sorted.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let mut bytes = Vec::with_capacity(sorted.len() * 16);
    for (name, kind) in sorted {
        bytes.extend_from_slice(name.as_encoded_bytes());
        bytes.push(0);
        bytes.push(*kind as u8);
    }
    known::digest(&bytes)
}

fn kind_of_type(t: std::fs::FileType) -> Kind {
    if t.is_symlink() {
        Kind::Link
    } else if t.is_file() {
        Kind::File
    } else if t.is_dir() {
        Kind::Dir
    } else {
        Kind::Other
    }
}

/// A folder's entries; empty when there is no folder there (nothing can be inside), `None` when
/// one is there but cannot be listed (its entries may still be reachable by name).
fn list(dir: &Path) -> Option<HashMap<OsString, Kind>> {
    let mut out = HashMap::default();
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
            return Some(out)
        }
        Err(_) => return None,
    };
    for entry in entries.flatten() {
        // `file_type` comes with the listing on most file systems: no call per entry.
        let kind = entry.file_type().map_or(Kind::Other, kind_of_type);
        out.insert(entry.file_name(), kind);
    }
    Some(out)
}

fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| normalize(path))
}

fn is_project_root(fs: &mut Fs, dir: &Path) -> bool {
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
struct Wanted {
    imports: Vec<(u32, String)>,
    top_level: usize,
}

fn wanted_imports(module: &Module) -> Wanted {
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

/// An absolute path with `.` and `..` worked out, without touching the file system.
pub fn normalize(path: &Path) -> PathBuf {
    // Most paths asked about are normal already (absolute, no `.` or `..`, no doubled or trailing
    // `/`): the work below, for each file of a tree, is a large part of a run answered from the
    // cache.
    #[cfg(unix)]
    {
        let bytes = path.as_os_str().as_encoded_bytes();
        let normal = bytes.first() == Some(&b'/')
            && (bytes.len() == 1 || !bytes.ends_with(b"/"))
            && !bytes.ends_with(b"/.")
            && !bytes.ends_with(b"/..")
            && !bytes.windows(2).any(|w| w == b"//")
            && !bytes.windows(3).any(|w| w == b"/./")
            && !bytes.windows(4).any(|w| w == b"/../");
        if normal {
            return path.to_path_buf();
        }
    }
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for component in absolute.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// How a file found through an import is shown: relative to the working directory when under it.
fn shown(path: &Path) -> PathBuf {
    std::env::current_dir()
        .ok()
        .map(|cwd| normalize(&cwd))
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| path.to_path_buf())
}

impl gpulint_core::diagnostic::Sources for Program {
    fn text(&self, file: FileId) -> &str {
        &self.file(file).text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    /// A leaf keeps the scan's imports until its analysis, which resolves its import statements
    /// through them: on every Python file of the repository, the scan finds each import the
    /// parser does, under the same key.
    #[test]
    fn the_scan_finds_every_import_the_parser_does() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut checked = 0;
        for entry in ignore::Walk::new(&root).flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|e| e != "py") {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(path) else {
                continue;
            };
            let Ok(lowered) = lower::parse(&text, FileId(0)) else {
                continue;
            };
            let Some(scanned) = prefilter::imports(&text) else {
                continue;
            };
            let scanned: HashSet<(u32, String)> = scanned.into_iter().collect();
            for import in wanted_imports(&lowered.module).imports {
                assert!(
                    scanned.contains(&import),
                    "{}: the scan missed {import:?}",
                    path.display()
                );
            }
            checked += 1;
        }
        assert!(checked > 300, "only {checked} files read");
    }

    /// The split of a path into folder and name that the listings use gives what `Path::parent` and
    /// `Path::file_name` give (a bare name's folder is `.`), or the same folder spelled as the path
    /// spells it where `Path` drops a `.` inside it.
    #[test]
    fn a_path_splits_as_path_does() {
        let paths = [
            "a.py",
            "./a.py",
            "pkg/a.py",
            "./pkg/a.py",
            "/abs/pkg/__init__.py",
            "/a.py",
            "/",
            "",
            ".",
            "..",
            "pkg/..",
            "pkg/.",
            "pkg/",
            "pkg//a.py",
            "pkg/./a.py",
            "pkg/../a.py",
            "../../up/a.py",
            "a/./b/c.py",
            "pkg/a.py/",
        ];
        for text in paths {
            let path = Path::new(text);
            let by_path = path.file_name().map(|name| {
                let dir = match path.parent() {
                    Some(d) if !d.as_os_str().is_empty() => d,
                    _ => Path::new("."),
                };
                (dir, name)
            });
            let split = split_name(path);
            assert_eq!(split.map(|s| s.1), by_path.map(|s| s.1), "{text}");
            // Equal as `Path`s compare: component by component.
            assert_eq!(split.map(|s| s.0), by_path.map(|s| s.0), "{text}");
        }
    }

    /// A module name that is no folder (`from .utils import Optional`) is looked up under a folder
    /// that is not there: its listing is empty, so no entry under it is asked of the file system
    /// one by one (on transformers, 75,000 such calls), and a folder its parent's listing does not
    /// show is not opened (6,000 more). A folder that is there is listed as it is.
    #[test]
    fn a_missing_folder_lists_as_empty() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.py"), "").unwrap();
        let missing = list(&dir.path().join("nothing_here")).expect("a listing");
        assert!(missing.is_empty());
        let not_a_folder = list(&dir.path().join("a.py")).expect("a listing");
        assert!(not_a_folder.is_empty());
        let listed = list(dir.path()).expect("a listing");
        assert_eq!(listed.get(OsStr::new("a.py")), Some(&Kind::File));
        std::fs::create_dir(dir.path().join("pkg")).unwrap();
        std::fs::write(dir.path().join("pkg").join("__init__.py"), "").unwrap();
        let mut fs = Fs::default();
        assert!(fs.is_file(&dir.path().join("a.py")));
        assert!(!fs.exists(&dir.path().join("nothing_here").join("__init__.py")));
        assert!(!fs.exists(&dir.path().join("a.py").join("b").join("__init__.py")));
        assert!(fs.is_file(&dir.path().join("pkg").join("__init__.py")));
        // What the missing folder holds was answered once, as nothing.
        let missing = dir.path().join("nothing_here");
        assert!(fs.listings[missing.as_os_str().as_encoded_bytes()]
            .as_ref()
            .is_some_and(|l| l.is_empty()));
    }

    /// A chain is found one name at a time, each as a regular package (`name/__init__.py`), then a
    /// module (`name.py`, last only), then a namespace folder; and a root is tried for a deeper
    /// module only where it holds a folder of the first name.
    #[test]
    fn a_chain_resolves_packages_modules_and_namespace_folders() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for folder in ["pkg/sub", "space/inner", "both"] {
            std::fs::create_dir_all(root.join(folder)).unwrap();
        }
        for file in [
            "pkg/__init__.py",
            "pkg/sub/__init__.py",
            "pkg/sub/leaf.py",
            "pkg/mod.py",
            "space/inner/deep.py",
            "both.py",
            "both/__init__.py",
            "top.py",
        ] {
            std::fs::write(root.join(file), "").unwrap();
        }
        let mut builder = Builder::default();
        let mut found = Vec::new();
        let mut files = |builder: &mut Builder, parts: &[&str]| {
            builder.chain(root, parts, &mut found).map(|chain| {
                chain
                    .iter()
                    .map(|n| {
                        builder.program.nodes[n.0 as usize].file.map(|f| {
                            let path = &builder.program.files[f.0 as usize].path;
                            path.strip_prefix(root)
                                .unwrap()
                                .to_string_lossy()
                                .into_owned()
                        })
                    })
                    .collect::<Vec<_>>()
            })
        };
        let some = |s: &str| Some(s.to_string());
        assert_eq!(
            files(&mut builder, &["pkg", "sub", "leaf"]),
            Some(vec![
                some("pkg/__init__.py"),
                some("pkg/sub/__init__.py"),
                some("pkg/sub/leaf.py")
            ])
        );
        assert_eq!(
            files(&mut builder, &["pkg", "mod"]),
            Some(vec![some("pkg/__init__.py"), some("pkg/mod.py")])
        );
        assert_eq!(
            files(&mut builder, &["space", "inner", "deep"]),
            Some(vec![None, None, some("space/inner/deep.py")])
        );
        // A package is found before a module of the same name.
        assert_eq!(
            files(&mut builder, &["both"]),
            Some(vec![some("both/__init__.py")])
        );
        assert_eq!(files(&mut builder, &["top"]), Some(vec![some("top.py")]));
        // A module has no submodules; a name that is nowhere ends the chain.
        assert_eq!(files(&mut builder, &["top", "x"]), None);
        assert_eq!(files(&mut builder, &["pkg", "missing"]), None);
        let root = root.to_path_buf();
        assert!(builder.chain_if_first_party(&root, &["top"]).is_some());
        assert!(builder
            .chain_if_first_party(&root, &["space", "inner", "deep"])
            .is_some());
        assert!(builder
            .chain_if_first_party(&root, &["space", "inner", "none"])
            .is_none());
        // First-party by its top module; the chain above still finds no `x` in it.
        assert!(builder.chain_if_first_party(&root, &["top", "x"]).is_some());
        assert!(builder
            .chain_if_first_party(&root, &["nothing", "x"])
            .is_none());
    }

    /// A wave is loaded in steps (`LOAD_STEP` files), each step's imports resolved while the next
    /// is read: a chain of imports across several steps, given backwards, with one module that is
    /// no input found from the middle step, ends as one read all at once would: each module
    /// resolves its import, the module found later is read, and relevance flows back the whole
    /// chain from the one that imports torch (to the first, a leaf, through its scanned imports).
    #[test]
    fn a_wave_loaded_in_steps_resolves_every_import() {
        let dir = tempfile::tempdir().unwrap();
        let count = 2 * LOAD_STEP + 3;
        for i in 0..count {
            let text = match i {
                i if i + 1 == count => "import torch\n".to_string(),
                i if i == LOAD_STEP + 1 => format!("import m{}\nimport extra\n", i + 1),
                i => format!("import m{}\n", i + 1),
            };
            std::fs::write(dir.path().join(format!("m{i}.py")), text).unwrap();
        }
        std::fs::write(dir.path().join("extra.py"), "x = 1\n").unwrap();
        let inputs = (0..count)
            .rev()
            .map(|i| Input::Path(dir.path().join(format!("m{i}.py"))))
            .collect();
        let program = Program::build(inputs);
        let id = |name: &str| {
            program
                .files()
                .find(|(_, f)| f.path.file_name() == Some(OsStr::new(name)))
                .map(|(id, _)| id)
                .unwrap_or_else(|| panic!("{name} is not in the program"))
        };
        for i in 0..count {
            let file = id(&format!("m{i}.py"));
            assert!(program.is_relevant(file), "m{i} reaches torch");
            if i == 0 {
                // Nothing imports it: a leaf, whose own analysis resolves its imports.
                assert!(program.is_lazy(file));
                continue;
            }
            let imported: Vec<FileId> = program.imports_at_top_level(file).to_vec();
            let mut wanted = Vec::new();
            if i + 1 < count {
                wanted.push(id(&format!("m{}.py", i + 1)));
            }
            if i == LOAD_STEP + 1 {
                wanted.push(id("extra.py"));
            }
            assert_eq!(imported, wanted, "m{i}'s imports");
        }
        let extra = id("extra.py");
        assert!(!program.file(extra).checked);
        assert!(
            program.module(extra).is_some(),
            "the module found later is parsed"
        );
    }

    /// A leaf's text is not held: its analysis reads the file again (what it reads is what is
    /// analysed and shown), and a leaf gone since the scan is reported as unreadable, not
    /// analysed as empty.
    #[test]
    fn a_leaf_is_read_again_for_its_analysis() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("leaf.py");
        std::fs::write(&path, "import torch\n").unwrap();
        let program = Program::build(vec![Input::Path(path.clone())]);
        let id = FileId(0);
        assert!(program.is_lazy(id));
        assert!(
            program.file(id).text.is_on_disk(),
            "not held after the scan"
        );
        std::fs::write(&path, "import torch\nx = 1\n").unwrap();
        let leaf = program.parse_leaf(id).unwrap().unwrap();
        assert_eq!(leaf.module.body.len(), 2, "the file as it is now");
        assert_eq!(&*program.file(id).text, "import torch\nx = 1\n");
        let gone = Program::build(vec![Input::Path(path.clone())]);
        std::fs::remove_file(&path).unwrap();
        match gone.parse_leaf(id) {
            Some(Err(FileError::Unreadable(reason))) => assert!(reason.contains("No such file")),
            Some(Err(other)) => panic!("a leaf gone since the scan: {other:?}"),
            _ => panic!("a leaf gone since the scan is analysed"),
        }
        // Given as text (standard input, an editor's buffer), a leaf is held as given.
        let given = Program::build(vec![Input::Text {
            path: dir.path().join("given.py"),
            text: "import torch\n".into(),
        }]);
        assert!(given.is_lazy(id));
        assert!(!given.file(id).text.is_on_disk());
        assert!(given.parse_leaf(id).unwrap().is_ok());
    }

    /// A module another imports is parsed while the program is built, and its text is not held
    /// either: a finding in it reads the file again to be shown. Given as text, it is held.
    #[test]
    fn a_parsed_module_is_read_again_to_be_shown() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("main.py"), "import helper\n").unwrap();
        let helper = dir.path().join("helper.py");
        std::fs::write(&helper, "import torch\nx = 1\n").unwrap();
        let program = Program::build(vec![Input::Path(dir.path().join("main.py"))]);
        let (id, file) = program
            .files()
            .find(|(_, f)| f.path.ends_with("helper.py"))
            .expect("imported");
        assert!(program.module(id).is_some_and(|m| m.body.len() == 2));
        assert!(file.text.is_on_disk());
        assert_eq!(file.location(14).line, 2);
        assert_eq!(&*file.text, "import torch\nx = 1\n");
        let given = Program::build(vec![
            Input::Text {
                path: dir.path().join("main.py"),
                text: "import helper\n".into(),
            },
            Input::Text {
                path: helper,
                text: "import torch\n".into(),
            },
        ]);
        assert!(given.files().all(|(_, f)| !f.text.is_on_disk()));
    }

    /// An editor's text of a module is what its importers see; the module is not checked for it,
    /// and a held file nothing imports is not read at all.
    #[test]
    fn an_import_reads_the_held_text_instead_of_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("main.py");
        std::fs::write(
            &main,
            "import helper
",
        )
        .unwrap();
        let helper = dir.path().join("helper.py");
        std::fs::write(
            &helper, "x = 1
",
        )
        .unwrap();
        let program = Program::build(vec![
            Input::Path(main),
            Input::Held {
                path: helper,
                text: "import torch\nx = 2\ny = 3\n".into(),
            },
            Input::Held {
                path: dir.path().join("unrelated.py"),
                text: "import torch\n".into(),
            },
        ]);
        let (id, file) = program
            .files()
            .find(|(_, f)| f.path.ends_with("helper.py"))
            .expect("imported");
        assert_eq!(&*file.text, "import torch\nx = 2\ny = 3\n");
        assert!(!file.checked);
        assert!(program.module(id).is_some_and(|m| m.body.len() == 3));
        assert_eq!(program.files().count(), 2);
    }
}
