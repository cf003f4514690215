//! Rust sources: loaded into crates by the Rust frontend, given the run's ids after the Python
//! program's files (registered in the run's file table for positions and suppression comments),
//! and analysed one crate per task.

use std::panic::{catch_unwind, AssertUnwindSafe};

use gpulint_analyses::Analyses;
use gpulint_core::diagnostic::Sources;
use gpulint_core::effect::CudaInitSite;
use gpulint_core::files::File;
use gpulint_core::source::{FileId, Span};
use gpulint_python::program::Input;
use gpulint_rules::{Diagnostic, Language};
use gpulint_rust::{FileError, Loaded, Source};
use rayon::prelude::*;
use rustc_hash::FxHashMap as HashMap;

/// The Rust files a run checks, loaded, and the run's id of the first (the others follow).
pub struct Rust {
    loaded: Loaded,
    first: u32,
}

fn is_rust(path: &std::path::Path) -> bool {
    path.extension().is_some_and(|e| e == "rs")
}

/// Splits the inputs into those of the Python frontend and Rust sources.
pub fn split(inputs: Vec<Input>) -> (Vec<Input>, Vec<Source>) {
    let mut python = Vec::new();
    let mut rust = Vec::new();
    for input in inputs {
        match input {
            Input::Path(p) if is_rust(&p) => rust.push(Source::Path(p)),
            Input::Bytes { path, bytes } if is_rust(&path) => {
                let text = String::from_utf8_lossy(&bytes).into_owned();
                rust.push(Source::Text(path, text));
            }
            Input::Text { path, text } if is_rust(&path) => rust.push(Source::Text(path, text)),
            other => python.push(other),
        }
    }
    (python, rust)
}

/// Loads the Rust sources and their crates.
pub fn read(sources: Vec<Source>) -> Loaded {
    if sources.is_empty() {
        return Loaded::default();
    }
    gpulint_rust::load(sources)
}

/// The extension modules the crates define whose initialiser initialises CUDA, by the name Python
/// imports them by; their sites' files are the loaded files' indices (`FileId(i)`) until
/// `Program::remap_native` gives them their ids.
pub fn native_modules(loaded: &Loaded) -> HashMap<String, Vec<CudaInitSite>> {
    let mut out: HashMap<String, Vec<CudaInitSite>> = HashMap::default();
    for krate in &loaded.crates {
        // Parsing a crate again costs; only a crate that names `pymodule` can define one.
        let names_pymodule = krate.modules.iter().any(|(f, _)| {
            let text = &loaded.files[*f].text;
            text.contains(gpulint_rust::libraries::EXTENSION_MODULE_ATTRIBUTE)
        });
        if !names_pymodule || !gpulint_rust::may_matter(loaded, krate) {
            continue;
        }
        let found = catch_unwind(AssertUnwindSafe(|| {
            gpulint_rust::native_modules(loaded, krate, |f| FileId(f as u32))
        }));
        for (name, site) in found.unwrap_or_default() {
            out.entry(name).or_default().push(site);
        }
    }
    out
}

/// A digest of the native extension modules (zero for none): their names and sites, their files,
/// and the crate folder each belongs to, which `Program::native_module` compares importers with.
pub fn native_digest(native: &HashMap<String, Vec<CudaInitSite>>, loaded: &Loaded) -> u128 {
    use std::fmt::Write;
    if native.is_empty() {
        return 0;
    }
    let mut names: Vec<&String> = native.keys().collect();
    names.sort();
    let mut text = String::new();
    for name in names {
        for site in &native[name] {
            let path = loaded
                .files
                .get(site.span.file.0 as usize)
                .map(|f| f.path.as_path());
            let krate = path.and_then(|p| {
                p.ancestors()
                    .skip(1)
                    .find(|dir| dir.join("Cargo.toml").is_file())
            });
            let _ = writeln!(text, "{name} {site:?} {path:?} {krate:?}");
        }
    }
    gpulint_python::known::digest(text.as_bytes())
}

/// Gives every loaded file its id in the run: the next ids after the Python program's `first`
/// files.
pub fn add(loaded: Loaded, first: u32) -> Rust {
    Rust { loaded, first }
}

impl Rust {
    /// The run's id of the loaded file `index` (as `FileId(index)`).
    pub fn id(&self, index: FileId) -> FileId {
        FileId(self.first + index.0)
    }

    /// The path of the loaded file `index` (as `FileId(index)`).
    pub fn path(&self, index: FileId) -> std::path::PathBuf {
        self.loaded.files[index.0 as usize].path.clone()
    }

    /// The id of the first file (the program's file count).
    pub fn first(&self) -> u32 {
        self.first
    }

    /// Every loaded file as a language-neutral `File` (its path, text and comments), in the order
    /// of their ids, for the run's file table.
    pub fn files(&self) -> Vec<File> {
        self.loaded.files.iter().map(|f| f.file()).collect()
    }
}

/// GPU999 for each file that could not be read or parsed (a checked file, or one its crate
/// needs: a module, a target the manifest names), then every crate's findings, by the crate's
/// root file.
pub fn check(
    rust: &Rust,
    sources: &(dyn Sources + Sync),
) -> Vec<(FileId, Result<Vec<Diagnostic>, String>)> {
    let mut out: Vec<(FileId, Result<Vec<Diagnostic>, String>)> = Vec::new();
    for (i, file) in rust.loaded.files.iter().enumerate() {
        let id = rust.id(FileId(i as u32));
        let diagnostic = match &file.error {
            None => continue,
            Some(FileError::Unreadable { reason, at }) => {
                gpulint_rules::unreadable_file(reason, Span::new(id, *at, *at))
            }
            Some(FileError::Syntax { message, at }) => {
                gpulint_rules::invalid_syntax(message, Span::new(id, *at, *at))
            }
        };
        out.push((id, Ok(vec![diagnostic])));
    }
    let crates: Vec<_> = rust
        .loaded
        .crates
        .iter()
        .filter(|c| gpulint_rust::may_matter(&rust.loaded, c))
        .collect();
    let analysed: Vec<_> = crates
        .into_par_iter()
        .map(|krate| {
            let root = krate
                .modules
                .first()
                .map_or(FileId(0), |(f, _)| rust.id(FileId(*f as u32)));
            let result = catch_unwind(AssertUnwindSafe(|| {
                let facts = gpulint_rust::analyze::<Analyses>(&rust.loaded, krate, |f| {
                    rust.id(FileId(f as u32))
                });
                gpulint_rules::check(&facts, sources, Language::Rust)
            }))
            .map_err(crate::panics::panic_message);
            (root, result)
        })
        .collect();
    out.extend(analysed);
    out
}
