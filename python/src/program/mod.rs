//! The program: the files being checked and the first-party modules they import, each read and
//! parsed once, with every import statement resolved to the project's own modules.
//!
//! Imports resolve as Python would find them on disk: relative imports from the importing file's
//! package; absolute ones under the search roots of that file (its own folder, as for a script; the
//! folder above its top package; the project root, marked by `pyproject.toml`, `setup.py`,
//! `setup.cfg` or `.git`, and its `src/`). What resolves nowhere is third-party and goes through the
//! library tables.
//!
//! The program is split by concern: `load` (the waves of reading and parsing), `read` (a
//! file's bytes to text), `resolve` (imports to modules), `fs` (the file-system answers
//! resolution relies on), `relevance` (the import graph and which files can reach a GPU
//! library), `leaf` (files parsed by their own analysis) and `reuse` (what a cache needs).

mod environment;
mod fs;
mod leaf;
mod load;
mod read;
mod relevance;
mod resolve;
mod reuse;
#[cfg(test)]
mod tests;

pub use environment::{followed, Environment, MAX_ENVIRONMENT_FILES};
pub use fs::{normalize, Probe};
pub use load::leaf_summary;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use gpulint_core::files::{File, Files};
use gpulint_core::fsio::{FileState, Stamp};

use crate::known::{Digest, Known};
use crate::lower::SyntaxError;
use crate::model::Module;
use crate::notebook::{self, Notebook};
use crate::source::{FileId, LineCol, Span};
use gpulint_core::text::Text;

use read::read_text;
pub use read::MAX_FILE_BYTES;

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
}

/// A file of the program: the language-neutral [`File`] and what the Python frontend knows of it.
#[derive(Debug)]
pub struct SourceFile {
    /// What every language's file has: its path, text, comments and cells (read through
    /// `Deref`, so `file.path` and `file.text` read as before).
    pub base: File,
    pub module: Result<Module, FileError>,
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
    /// What its text asks of the CPU-first packages (read while the text was at hand: a text read
    /// from disk is not held).
    asked: crate::names::GpuAsked,
    /// A leaf: a checked file no other module imports. Only its own analysis needs its model, so
    /// it is parsed there, once ([`Program::parse_leaf`]); until then its imports are those the
    /// scan read from its text.
    lazy: bool,
    /// Only scanned for imports, never parsed: it can reach no GPU library (its module is empty).
    /// A checked one is parsed for its syntax errors alone ([`Program::syntax_error`]).
    scanned_only: bool,
    /// It may set a default context's start method ([`crate::names::sets_start_method`]).
    sets_start_method: bool,
    /// The file, or a first-party module it imports (transitively), imports a GPU library.
    reaches_gpu: bool,
    /// Its analysis can find something: it reaches a GPU library, or it names `set_start_method`
    /// itself (which makes no importer relevant).
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
    /// A file of an installed package (see `environment`): never checked, never reported on.
    environment: bool,
}

impl std::ops::Deref for SourceFile {
    type Target = File;

    fn deref(&self) -> &File {
        &self.base
    }
}

impl std::ops::DerefMut for SourceFile {
    fn deref_mut(&mut self) -> &mut File {
        &mut self.base
    }
}

impl SourceFile {
    /// The digest of the text it was scanned or parsed from (when the build learned or knew).
    /// What its text asks of the CPU-first packages (see `names::asks_for_gpu`).
    pub fn asked(&self) -> crate::names::GpuAsked {
        self.asked
    }

    pub fn text_digest(&self) -> Option<Digest> {
        self.text_digest
    }

    /// What loading it found that the cache did not know (when the build learned): the scan, and
    /// what its parse gave, taken from its model.
    pub fn learned(&self) -> Known {
        let mut known = self.learned.clone();
        if let (true, Ok(module)) = (self.parsed_here, &self.module) {
            known.parse = Some(leaf_summary(module, self.asked, &self.comments));
        }
        known
    }

    /// A file not read yet: no text, no module.
    fn unread(base: File) -> SourceFile {
        SourceFile {
            base,
            module: Err(FileError::Unreadable("not read".into())),
            notebook: None,
            interactive: false,
            imports: HashMap::default(),
            runs_at_import: Vec::new(),
            gpu: false,
            asked: Default::default(),
            lazy: false,
            scanned_only: false,
            sets_start_method: false,
            reaches_gpu: false,
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
            environment: false,
        }
    }

    /// Where byte `offset` of the text is in the file as stored: its line and column there. For a
    /// script, [`File::line_col`]'s; for a notebook, the line of the `.ipynb` file's JSON
    /// where that character of its cell's `source` is written (what annotations on the file need).
    pub fn stored_line_col(&self, offset: u32) -> LineCol {
        self.notebook
            .as_ref()
            .and_then(|n| n.json_line_col(&self.text, self.lines(), offset))
            .unwrap_or_else(|| self.line_col(offset))
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
    /// The path of each native module site's file, by its id in the run (see
    /// [`Program::remap_native`]).
    native_paths: HashMap<FileId, PathBuf>,
    /// What import resolution asked the file system, for a cache to tell whether it would resolve
    /// every import alike.
    probes: Vec<Probe>,
    /// The project's installed packages, where imports no project module answers are followed.
    environment: Environment,
    /// How many files of theirs the program read.
    environment_files: usize,
    /// Which definitions can reach a hazard, from every module (see [`Program::reach`]).
    reach: OnceLock<crate::reach::Reach>,
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
        Program::build_knowing(inputs, native, import_root, None, Environment::default())
    }

    /// A program of the files a cache recorded, in the same order (so with the same ids): for
    /// reporting the findings it kept, not for analysing (there are no models). A text is read from
    /// its file when a finding shows it; a notebook is read now, for its cells.
    pub fn restore(files: Vec<Restored>) -> Program {
        let mut program = Program::default();
        for (i, restored) in files.into_iter().enumerate() {
            let id = FileId(i as u32);
            let mut file =
                SourceFile::unread(File::new(restored.path, Text::default(), restored.checked));
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

    /// Which definitions of the program's modules can reach a hazard, found once (after
    /// [`Program::materialize`], which parses the modules the analyses read).
    pub fn reach(&self) -> &crate::reach::Reach {
        self.reach.get_or_init(|| {
            crate::reach::Reach::build(self.files.iter().filter_map(|f| f.module.as_ref().ok()))
        })
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.0 as usize]
    }

    /// Whether `file` runs as an interactive `__main__` (see [`SourceFile::interactive`]).
    pub fn is_interactive(&self, file: FileId) -> bool {
        self.files
            .get(file.0 as usize)
            .is_some_and(|f| f.interactive)
    }
}

impl gpulint_core::diagnostic::Sources for Program {
    fn text(&self, file: FileId) -> &str {
        &self.file(file).text
    }
}

impl Files for Program {
    fn file(&self, id: FileId) -> &File {
        &self.files[id.0 as usize].base
    }

    fn ids(&self) -> Box<dyn Iterator<Item = FileId> + '_> {
        Box::new((0..self.files.len() as u32).map(FileId))
    }

    fn stored_line_col(&self, id: FileId, offset: u32) -> LineCol {
        self.files[id.0 as usize].stored_line_col(offset)
    }
}
