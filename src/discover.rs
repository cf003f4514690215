//! Finds the files to check: Python sources, Jupyter notebooks and Rust sources under the given
//! paths, honouring .gitignore.

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

/// Every Python file, notebook and Rust file under `paths`, sorted and de-duplicated. A path given
/// explicitly is checked whatever its extension.
pub fn discover(paths: &[PathBuf]) -> Vec<Found> {
    let mut found = Vec::new();
    for root in paths {
        match std::fs::metadata(root) {
            Err(err) => {
                found.push(Found::Error(root.clone(), err.to_string()));
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
                let is_dir = e.file_type().is_some_and(|t| t.is_dir());
                let skipped = e
                    .file_name()
                    .to_str()
                    .is_some_and(|n| SKIPPED_DIRS.contains(&n))
                    || is_cargo_target(e.path());
                !(is_dir && skipped)
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
        Some("py" | "pyi" | "ipynb" | "rs")
    )
}

/// Cargo's build folder: `target/` beside a `Cargo.toml`, or any folder Cargo tagged as a cache.
fn is_cargo_target(dir: &Path) -> bool {
    let beside_manifest = dir.file_name().is_some_and(|n| n == "target")
        && dir.parent().is_some_and(|p| p.join("Cargo.toml").is_file());
    beside_manifest || dir.join("CACHEDIR.TAG").is_file()
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
