//! Rust sources: loaded into crates by the Rust frontend, added to the program (for positions and
//! suppression comments), and analysed one crate per task.

use std::panic::{catch_unwind, AssertUnwindSafe};

use gpulint_analyses::Analyses;
use gpulint_python::program::{Input, Program};
use gpulint_python::source::{FileId, Span};
use gpulint_rules::{Diagnostic, Language};
use gpulint_rust::{Loaded, Source};
use rayon::prelude::*;

/// The Rust files a run checks, loaded, and the program's id of each.
pub struct Rust {
    loaded: Loaded,
    ids: Vec<FileId>,
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

/// Loads the Rust sources and their crates, and adds every file to the program.
pub fn load(sources: Vec<Source>, program: &mut Program) -> Rust {
    if sources.is_empty() {
        return Rust {
            loaded: Loaded::default(),
            ids: Vec::new(),
        };
    }
    let loaded = gpulint_rust::load(sources);
    let ids = loaded
        .files
        .iter()
        .map(|f| program.add_foreign(f.path.clone(), f.text.clone(), &f.comments, f.checked))
        .collect();
    Rust { loaded, ids }
}

/// GPU999 for each checked file that could not be read or parsed, then every crate's findings,
/// by the crate's root file.
pub fn check(rust: &Rust, program: &Program) -> Vec<(FileId, Result<Vec<Diagnostic>, String>)> {
    let mut out: Vec<(FileId, Result<Vec<Diagnostic>, String>)> = Vec::new();
    for (i, file) in rust.loaded.files.iter().enumerate() {
        if let (true, Some((message, at))) = (file.checked, &file.error) {
            let span = Span::new(rust.ids[i], *at, *at);
            out.push((
                rust.ids[i],
                Ok(vec![gpulint_rules::invalid_syntax(message, span)]),
            ));
        }
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
                .map_or(FileId(0), |(f, _)| rust.ids[*f]);
            let result = catch_unwind(AssertUnwindSafe(|| {
                let facts = gpulint_rust::analyze::<Analyses>(&rust.loaded, krate, |f| rust.ids[f]);
                gpulint_rules::check(&facts, program, Language::Rust)
            }))
            .map_err(|panic| {
                panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".into())
            });
            (root, result)
        })
        .collect();
    out.extend(analysed);
    out
}
