//! Checks files in parallel: read, parse, analyse, run the rules. Each file is independent; a file
//! that cannot be read or parsed becomes a GPU999 diagnostic and the others go on.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use gpulint_analyzer::lower;
use gpulint_analyzer::semantic::{self, Settings};
use gpulint_analyzer::source::{LineIndex, Span};
use gpulint_rules::Diagnostic;
use rayon::prelude::*;

use crate::discover::Found;

/// What checking one file produced.
pub struct FileReport {
    pub path: PathBuf,
    /// The file's text (lossy for a file that is not UTF-8), for excerpts and positions.
    pub text: String,
    pub lines: LineIndex,
    pub diagnostics: Vec<Diagnostic>,
    /// A bug in gpulint itself while checking this file.
    pub internal_error: Option<String>,
}

/// Deep nesting is parsed and analysed recursively: give each worker thread room for it.
const STACK_SIZE: usize = 256 << 20;

pub fn check_files(files: Vec<Found>) -> anyhow::Result<Vec<FileReport>> {
    let pool = rayon::ThreadPoolBuilder::new()
        .stack_size(STACK_SIZE)
        .build()?;
    Ok(pool.install(|| files.into_par_iter().map(check_found).collect()))
}

fn check_found(found: Found) -> FileReport {
    match found {
        Found::Error(path, reason) => report(
            path,
            String::new(),
            vec![gpulint_rules::unreadable_file(&reason)],
        ),
        Found::File(path) => match std::fs::read(&path) {
            Err(err) => report(
                path,
                String::new(),
                vec![gpulint_rules::unreadable_file(&err.to_string())],
            ),
            Ok(bytes) => {
                let outcome = catch_unwind(AssertUnwindSafe(|| check_bytes(&bytes)));
                match outcome {
                    Ok((text, diagnostics)) => report(path, text, diagnostics),
                    Err(panic) => {
                        let message = panic
                            .downcast_ref::<&str>()
                            .map(|s| s.to_string())
                            .or_else(|| panic.downcast_ref::<String>().cloned())
                            .unwrap_or_else(|| "unknown panic".into());
                        let mut r = report(
                            path,
                            String::from_utf8_lossy(&bytes).into_owned(),
                            Vec::new(),
                        );
                        r.internal_error = Some(message);
                        r
                    }
                }
            }
        },
    }
}

fn report(path: PathBuf, text: String, diagnostics: Vec<Diagnostic>) -> FileReport {
    FileReport {
        lines: LineIndex::new(&text),
        path,
        text,
        diagnostics,
        internal_error: None,
    }
}

/// Checks one file's bytes; returns its text and findings.
pub fn check_bytes(bytes: &[u8]) -> (String, Vec<Diagnostic>) {
    if let Some(nul) = bytes.iter().position(|b| *b == 0) {
        let text = String::from_utf8_lossy(&bytes[..nul]).into_owned();
        let at = Span::new(text.len() as u32, text.len() as u32);
        let mut d = gpulint_rules::unreadable_file("the file contains a NUL byte");
        d.span = at;
        return (String::from_utf8_lossy(bytes).replace('\0', " "), vec![d]);
    }
    let text = match String::from_utf8(bytes.to_vec()) {
        Ok(text) => text,
        Err(err) => {
            let valid = err.utf8_error().valid_up_to() as u32;
            let mut d = gpulint_rules::unreadable_file("the file is not valid UTF-8");
            d.span = Span::new(valid, valid);
            return (String::from_utf8_lossy(bytes).into_owned(), vec![d]);
        }
    };
    let diagnostics = check_source(&text);
    (text, diagnostics)
}

/// Checks Python source text.
pub fn check_source(text: &str) -> Vec<Diagnostic> {
    match lower::parse(text) {
        Err(err) => vec![gpulint_rules::invalid_syntax(&err.message, err.span)],
        Ok(lowered) => {
            let facts = semantic::analyze(&lowered.module, Settings::default());
            gpulint_rules::check(&facts)
        }
    }
}
