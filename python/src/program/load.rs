//! Loading: the checked files are read, scanned for imports or parsed, in waves, each wave the
//! first-party modules the last one's imports named, until none is new. A leaf (a checked file no
//! other module imports) is left for its own analysis to parse.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use gpulint_core::files::File;
use gpulint_core::fsio::{FileState, Stamp};

use crate::known::{self, Digest, Knowledge, Known, Parsed};
use crate::model::Module;
use crate::names::GpuAsked;
use crate::notebook::{self, Notebook};
use crate::prefilter;
use crate::source::{Cells, FileId, Span};
use gpulint_core::text::Text;

use super::fs::{normalize, Fs};
use super::read::{decode, parse, read_observed};
use super::resolve::{is_project_root, wanted_imports, Wanted};
use super::{is_notebook, FileError, Input, NodeId, Program, SourceFile};

impl Program {
    /// [`Program::build_with_native`], for a cache: texts `known` describes are neither scanned nor
    /// parsed (a parsed one is deferred, see [`crate::known`]), and what loading each file found is
    /// kept ([`Program::learned`]), with the answers of the file system that import resolution
    /// relied on ([`Program::probes`]). Imports no project module answers are followed into
    /// `environment`'s installed packages (see `environment`).
    pub fn build_knowing(
        inputs: Vec<Input>,
        native: HashMap<String, Vec<gpulint_core::effect::CudaInitSite>>,
        import_root: Option<PathBuf>,
        known: Option<std::sync::Arc<Knowledge>>,
        environment: super::Environment,
    ) -> Program {
        let mut builder = Builder {
            learn: known.is_some(),
            known,
            ..Builder::default()
        };
        builder.program.environment = environment;
        builder.fs.record = builder.learn;
        builder.program.native = native;
        let checked = common_folder(inputs.iter().filter_map(|input| match input {
            Input::Path(path) | Input::Text { path, .. } | Input::Bytes { path, .. } => {
                Some(path.as_path())
            }
            Input::Unreadable { .. } | Input::Held { .. } => None,
        }));
        builder.boundary = import_root.map(|r| normalize(&r)).or(checked);
        let wave = builder.first_wave(inputs);
        let mut scanned: Vec<FileId> = Vec::new();
        builder.load_waves(wave, &mut scanned);
        builder.load_late_imports(&mut scanned);
        builder.finish()
    }
}

impl Builder {
    /// Adds the checked files of `inputs` to the program (an unreadable one with its error, an
    /// editor's text aside for the imports that reach it); returns the first wave to load.
    fn first_wave(&mut self, inputs: Vec<Input>) -> Vec<(FileId, Source)> {
        let mut wave: Vec<(FileId, Source)> = Vec::new();
        for input in inputs {
            let (path, source) = match input {
                Input::Path(path) => (path, Source::Disk),
                Input::Text { path, text } => (path, Source::Bytes(text.into_bytes())),
                Input::Bytes { path, bytes } => (path, Source::Bytes(bytes)),
                Input::Unreadable { path, reason } => {
                    let key = self.fs.identity(&path);
                    let id = self.add_file(key, path, true);
                    self.program.files[id.0 as usize].module = Err(FileError::Unreadable(reason));
                    continue;
                }
                Input::Held { path, text } => {
                    let key = self.fs.identity(&path);
                    self.held.insert(key, text);
                    continue;
                }
            };
            let key = self.fs.identity(&path);
            if !self.by_path.contains_key(&key) {
                let id = self.add_file(key, path, true);
                wave.push((id, source));
            }
        }
        wave
    }

    /// Loads `wave` and the waves its imports lead to, parsing the scanned files that turn out to
    /// matter; the files left only scanned are in `scanned`.
    fn load_waves(&mut self, mut wave: Vec<(FileId, Source)>, scanned: &mut Vec<FileId>) {
        // Every file is first scanned for imports, not parsed: most of a tree like the standard
        // library can never reach a GPU library. Each round parses the scanned files that are
        // relevant (their imports reach one) or that an analysis imports, until none is left.
        // A checked file no other file imports (a leaf) is not parsed here: its analysis parses it,
        // once, so a tree's leaves are never all held at once.
        while !wave.is_empty() {
            self.load(wave, scanned);
            self.program.compute_relevance();
            let force = self.to_parse(scanned);
            scanned.retain(|id| !force.contains(id));
            let importers = self.program.importers();
            wave = force
                .into_iter()
                .filter_map(|id| {
                    let imported = importers[id.0 as usize].iter().any(|i| *i != id.0);
                    let file = &mut self.program.files[id.0 as usize];
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
    }

    fn load_late_imports(&mut self, scanned: &mut Vec<FileId>) {
        // A leaf that a module found later imports after all is parsed and held like the others.
        let mut late = self.program.imported_files();
        late.retain(|f| self.program.files[f.0 as usize].lazy);
        let late: Vec<(FileId, Source)> = late
            .into_iter()
            .map(|id| {
                let file = &mut self.program.files[id.0 as usize];
                file.lazy = false;
                let source = match file.text.is_on_disk() {
                    true => Source::Reread,
                    false => Source::Scanned(file.text.take(), true),
                };
                (id, source)
            })
            .collect();
        if !late.is_empty() {
            self.load(late, scanned);
            self.program.compute_relevance();
        }
    }

    /// The program built: the file-system answers resolution relied on, each once, and every
    /// file that does not parse checked.
    fn finish(mut self) -> Program {
        let mut probes = std::mem::take(&mut self.fs.probes);
        let mut seen = HashSet::default();
        probes.retain(|p| seen.insert(p.clone()));
        self.program.probes = probes;
        // An imported module that does not parse leaves part of the program unanalysed: it is
        // checked as if named, so its error is reported even when only its importer was.
        for file in self.program.files.iter_mut().filter(|f| !f.environment) {
            if matches!(
                file.module,
                Err(FileError::Syntax(_) | FileError::Binary { .. })
            ) {
                file.checked = true;
            }
        }
        self.program
    }
}

/// Files loaded per step of a wave (see `Builder::load`): small enough that the last step's
/// imports, resolved after every file is read, are few; large enough to split across threads.
pub(super) const LOAD_STEP: usize = 128;

/// Where a file's text comes from.
pub(super) enum Source {
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
    loaded.asked = crate::names::asks_for_gpu(&text);
    if keep.is_none() && scan(&mut loaded, &text, known, learn) {
        loaded.text = text.into();
        return loaded;
    }
    parse_or_recall(&mut loaded, &text, known, learn, text_digest);
    loaded.text = match from_disk && loaded.notebook.is_none() {
        true => Text::on_disk(path),
        false => Text::pack(text),
    };
    loaded
}

/// Reads the imports of `text` from its tokens (or from what the cache knows of it), without
/// parsing it; `false` when they cannot be read so (the file is parsed instead).
fn scan(loaded: &mut Loaded, text: &str, known: Option<&Known>, learn: bool) -> bool {
    let scan = match known.and_then(|k| k.scan.clone()) {
        Some(scan) => scan,
        // Characters Python folds to ASCII could spell an import the scan cannot read.
        None => (!prefilter::spells_ascii_with_other_characters(text))
            .then(|| prefilter::imports(text))
            .flatten(),
    };
    if learn && known.is_none_or(|k| k.scan.is_none()) {
        loaded.learned.scan = Some(scan.clone());
    }
    if let Some(imports) = scan {
        loaded.scanned = true;
        loaded.gpu = imports
            .iter()
            .any(|(level, dotted)| *level == 0 && crate::names::reaches_gpu(dotted, loaded.asked));
        loaded.wanted = Wanted {
            imports,
            top_level: 0,
        };
        return true;
    }
    false
}

/// Parses `text` into the file's model and takes what the loader needs from it, or, where the
/// cache knows the parse of this text, takes that and defers the model (see [`crate::known`]).
fn parse_or_recall(
    loaded: &mut Loaded,
    text: &str,
    known: Option<&Known>,
    learn: bool,
    text_digest: Option<Digest>,
) {
    match known.and_then(|k| k.parse.as_ref()) {
        Some(parsed) => {
            // Everything the loader takes from the model, without the model: parsed later if an
            // analysis needs it.
            loaded.deferred = true;
            loaded.comments = parsed
                .comments
                .iter()
                .map(|(start, end)| Span::new(loaded.id, *start, *end))
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
            let (module, comments) = parse(text, loaded.id);
            loaded.comments = comments;
            if let Ok(m) = &module {
                let names = crate::names::referenced_names(m);
                loaded.names = names.into_iter().map(str::to_string).collect();
                loaded.gpu = crate::names::imports_gpu_library(m, loaded.asked);
                loaded.wanted = wanted_imports(m);
                // What the cache keeps of this parse is taken from the model when it is written
                // (`SourceFile::learned`), not held twice meanwhile.
                loaded.parsed = learn;
            }
            loaded.module = module;
        }
    }
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
pub fn leaf_summary(module: &Module, asked: GpuAsked, comments: &[Span]) -> Parsed {
    let names: Vec<String> = crate::names::referenced_names(module)
        .into_iter()
        .map(str::to_string)
        .collect();
    let gpu = crate::names::imports_gpu_library(module, asked);
    summary(&wanted_imports(module), gpu, &names, comments)
}

/// One file as a parsing worker returns it.
struct Loaded {
    pub(super) id: FileId,
    pub(super) text: Text,
    pub(super) module: Result<Module, FileError>,
    pub(super) comments: Vec<Span>,
    /// The names it reads or uses as attributes.
    pub(super) names: Vec<String>,
    /// It imports a GPU library itself.
    pub(super) gpu: bool,
    /// What its text asks of the CPU-first packages.
    pub(super) asked: GpuAsked,
    /// Only scanned for imports, not parsed.
    pub(super) scanned: bool,
    /// A leaf, not parsed (see [`SourceFile::lazy`]).
    pub(super) lazy: bool,
    pub(super) wanted: Wanted,
    /// A notebook's cells and JSON.
    pub(super) notebook: Option<(Cells, Box<Notebook>)>,
    /// The file's stamp, where this load read it.
    pub(super) stamp: Option<Stamp>,
    /// What the file system said of it then, and the digest of its bytes (when learning).
    pub(super) state: Option<FileState>,
    pub(super) digest: Option<Digest>,
    /// The digest of the text scanned or parsed (when learning, or knowing).
    pub(super) text_digest: Option<Digest>,
    pub(super) learned: Known,
    /// Its parse was taken from what the cache knows: no model yet.
    pub(super) deferred: bool,
    /// The names it reads are those the cache knows of the text with this digest.
    pub(super) names_known: Option<Digest>,
    /// Parsed here (not deferred), while learning.
    pub(super) parsed: bool,
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
            asked: GpuAsked::default(),
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
pub(super) struct Builder {
    pub(super) program: Program,
    /// Keep what loading each file found, for the cache.
    pub(super) learn: bool,
    /// What the cache knows of texts, by digest.
    pub(super) known: Option<std::sync::Arc<Knowledge>>,
    pub(super) by_path: HashMap<PathBuf, FileId>,
    pub(super) nodes_by_path: HashMap<PathBuf, NodeId>,
    pub(super) roots: HashMap<PathBuf, Vec<PathBuf>>,
    /// The folder holding every checked file: outside a project (no `pyproject.toml`, `.git`...),
    /// absolute imports are looked for in the folders up to it, never in the working directory,
    /// so that findings depend on what is checked, not on where the check is run from.
    pub(super) boundary: Option<PathBuf>,
    /// Resolved imports, by the importer's folder (an index into `resolved`), then by the import
    /// as Python spells it (`..a.b`): files of one folder resolve imports alike.
    pub(super) folders: HashMap<PathBuf, usize>,
    pub(super) resolved: Vec<HashMap<String, Option<Vec<NodeId>>>>,
    pub(super) fs: Fs,
    /// Editors' texts of files (`Input::Held`), by identity: an import that reaches one reads it.
    pub(super) held: HashMap<PathBuf, String>,
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

impl Builder {
    /// Loads the files of `wave` in parallel (see [`load_one`]), resolves the imports of those
    /// parsed, and goes on with the first-party modules they import until none is new. A wave is
    /// loaded in steps: this thread takes in one step's files (resolving their imports, which
    /// shares the folder caches and so runs on one thread) while the others load the next step's.
    pub(super) fn load(&mut self, mut wave: Vec<(FileId, Source)>, scanned: &mut Vec<FileId>) {
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
        file.sets_start_method =
            crate::names::sets_start_method(&loaded.wanted.imports, loaded.asked, &file.path);
        file.asked = loaded.asked;
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

    pub(super) fn add_file(&mut self, key: PathBuf, shown: PathBuf, checked: bool) -> FileId {
        let id = FileId(self.program.files.len() as u32);
        let mut file = SourceFile::unread(File::new(shown, Text::default(), checked));
        file.environment = !checked && self.program.environment.root_of(&key).is_some();
        if file.environment {
            self.program.environment_files += 1;
        } else {
            file.in_test_folder = self.in_test_folder(&key);
        }
        self.program.files.push(file);
        self.by_path.insert(key, id);
        id
    }

    /// Whether a folder between `path` and its project's root (or the checked folder, outside a
    /// project) is a test suite's: folders above the project say nothing of it.
    pub(super) fn in_test_folder(&mut self, path: &Path) -> bool {
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
}
