//! `--write-baseline` and `--baseline`: record today's findings by fingerprint, then report only
//! the findings that are not in the record. Fingerprints are GitLab's and SARIF's (no line
//! numbers), with paths relative to the baseline's folder, so the record survives edits elsewhere
//! in a file and runs from another folder.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use gpulint_core::files::{normalize, Files};
use gpulint_rules::Diagnostic;
use serde::{Deserialize, Serialize};

use crate::config::Resolver;

#[derive(Serialize, Deserialize)]
struct Record {
    /// The gpulint that wrote it.
    gpulint: String,
    findings: Vec<Entry>,
}

/// One finding; only `fingerprint` is matched, the rest is for the reader of a diff.
#[derive(Serialize, Deserialize)]
struct Entry {
    fingerprint: String,
    code: String,
    path: String,
    message: String,
}

/// Findings that a baseline may hold: read and syntax errors are always reported.
fn recordable(d: &Diagnostic) -> bool {
    d.code != "GPU999"
}

/// The fingerprints of `diagnostics`, relative to `root`, each with its diagnostic.
fn fingerprinted<'a>(
    files: &dyn Files,
    mut diagnostics: Vec<&'a Diagnostic>,
    root: &Path,
) -> Vec<(String, &'a Diagnostic)> {
    // Duplicates are numbered in source order.
    diagnostics.sort_by_key(|d| (&files.file(d.span.file).path, d.span.start, d.code));
    let prints = crate::fingerprint::fingerprints(files, &diagnostics, root);
    prints.into_iter().zip(diagnostics).collect()
}

/// The folder fingerprints in the baseline at `path` are relative to.
fn root_of(path: &Path) -> PathBuf {
    normalize(path)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// Writes every finding but read errors to `path`; returns how many.
pub fn write(path: &Path, files: &dyn Files, diagnostics: &[Diagnostic]) -> anyhow::Result<usize> {
    let root = root_of(path);
    let kept: Vec<&Diagnostic> = diagnostics.iter().filter(|d| recordable(d)).collect();
    let findings: Vec<Entry> = fingerprinted(files, kept, &root)
        .into_iter()
        .map(|(fingerprint, d)| Entry {
            fingerprint,
            code: d.code.to_string(),
            path: crate::paths::relative_to(&files.file(d.span.file).path, &root),
            message: d.message.clone(),
        })
        .collect();
    let record = Record {
        gpulint: env!("CARGO_PKG_VERSION").to_string(),
        findings,
    };
    let mut text = serde_json::to_string_pretty(&record)?;
    text.push('\n');
    gpulint_core::fsio::write_whole(path, text.as_bytes())
        .map_err(|e| anyhow::anyhow!("cannot write the baseline {}: {e}", path.display()))?;
    Ok(record.findings.len())
}

/// A baseline holds a few hundred bytes a finding: this is room for about 300,000 of them.
const MAX_BASELINE_BYTES: u64 = 64 << 20;

/// The fingerprints recorded in the baseline at `path`.
fn read(path: &Path) -> anyhow::Result<HashSet<String>> {
    let text = gpulint_core::fsio::read_text(path, MAX_BASELINE_BYTES)
        .map_err(|e| anyhow::anyhow!("cannot read the baseline {}: {e}", path.display()))?;
    let record: Record = serde_json::from_str(&text).map_err(|e| {
        anyhow::anyhow!(
            "{} is not a gpulint baseline (write one with --write-baseline): {e}",
            path.display()
        )
    })?;
    Ok(record.findings.into_iter().map(|e| e.fingerprint).collect())
}

/// Drops the findings the baseline of their file (`--baseline`, else its configuration's
/// `baseline`) records; returns the rest and how many were dropped.
pub fn hide(
    files: &dyn Files,
    resolver: &mut Resolver,
    diagnostics: Vec<Diagnostic>,
) -> anyhow::Result<(Vec<Diagnostic>, usize)> {
    let mut by_baseline: BTreeMap<PathBuf, Vec<&Diagnostic>> = BTreeMap::new();
    for d in diagnostics.iter().filter(|d| recordable(d)) {
        if let Some(path) = resolver.baseline_for(&files.file(d.span.file).path)? {
            by_baseline.entry(path).or_default().push(d);
        }
    }
    // Merged diagnostics are one per place, rule and message: that identifies them.
    let mut hidden = HashSet::new();
    for (path, group) in by_baseline {
        let recorded = read(&path)?;
        for (print, d) in fingerprinted(files, group, &root_of(&path)) {
            if recorded.contains(&print) {
                hidden.insert((d.span, d.code, d.message.clone()));
            }
        }
    }
    let before = diagnostics.len();
    let kept: Vec<Diagnostic> = diagnostics
        .into_iter()
        .filter(|d| !hidden.contains(&(d.span, d.code, d.message.clone())))
        .collect();
    let count = before - kept.len();
    Ok((kept, count))
}
