//! Finds the files to check: Python sources and Jupyter notebooks under the given paths, honouring
//! .gitignore.

use std::path::{Path, PathBuf};

use ignore::WalkBuilder;

/// Folders never worth walking into: environments and installed packages.
const SKIPPED_DIRS: &[&str] = &[
    ".venv",
    "venv",
    "site-packages",
    "node_modules",
    "__pycache__",
];

/// A path to check, or a path that could not be walked, with the reason.
#[derive(Debug)]
pub enum Found {
    File(PathBuf),
    Error(PathBuf, String),
}

/// Every Python file and notebook under `paths`, sorted and de-duplicated. A path given
/// explicitly is checked whatever its extension.
pub fn discover(paths: &[PathBuf]) -> Vec<Found> {
    let mut found = Vec::new();
    for root in paths {
        match std::fs::metadata(root) {
            Err(err) => {
                found.push(Found::Error(root.clone(), err.to_string()));
                continue;
            }
            // Rust sources are named by hooks (`types_or: [python, pyi, jupyter, rust]`) but not
            // analysed yet: say so rather than report them as Python syntax errors.
            Ok(meta) if meta.is_file() && root.extension().is_some_and(|e| e == "rs") => {
                eprintln!(
                    "gpulint: {}: skipped: Rust sources are not analysed yet",
                    root.display()
                );
                continue;
            }
            Ok(meta) if meta.is_file() => {
                found.push(Found::File(root.clone()));
                continue;
            }
            Ok(_) => {}
        }
        let walker = WalkBuilder::new(root)
            .filter_entry(|e| {
                let skipped = e.file_type().is_some_and(|t| t.is_dir())
                    && e.file_name()
                        .to_str()
                        .is_some_and(|n| SKIPPED_DIRS.contains(&n));
                !skipped
            })
            .build();
        for entry in walker {
            match entry {
                Ok(entry) => {
                    let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
                    if !is_dir && is_checkable(entry.path()) {
                        found.push(Found::File(entry.into_path()));
                    }
                }
                Err(err) => {
                    let path = error_path(&err).unwrap_or_else(|| root.clone());
                    found.push(Found::Error(path, err.to_string()));
                }
            }
        }
    }
    found.sort_by(|a, b| key(a).cmp(key(b)));
    found.dedup_by(|a, b| key(a) == key(b));
    found
}

fn key(found: &Found) -> &Path {
    match found {
        Found::File(p) | Found::Error(p, _) => p,
    }
}

fn is_checkable(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("py" | "pyi" | "ipynb")
    )
}

fn error_path(err: &ignore::Error) -> Option<PathBuf> {
    match err {
        ignore::Error::WithPath { path, .. } => Some(path.clone()),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        ignore::Error::Loop { child, .. } => Some(child.clone()),
        _ => None,
    }
}
