//! `--fix`, `--unsafe-fixes` and `--diff`: gather the edits of the findings whose fix applies, apply
//! them per file (overlapping edits wait for the next round), and check again until nothing changes.
//! A notebook's edits go into its cells' sources; the rest of its JSON is left as it was.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use gpulint_rules::{Applicability, Edit};

use gpulint_core::files::Files;

use crate::check::Checked;

/// Which fixes apply.
#[derive(Clone, Copy, Debug)]
pub struct Mode {
    pub unsafe_fixes: bool,
}

/// What fixing one file changes: the text to write, and what a diff shows (the file's text, or
/// each edited cell's source for a notebook), as `(name, before, after)`.
pub struct Change {
    pub new: String,
    pub shown: Vec<(String, String, String)>,
    /// What the file held when the fix was made from it (a notebook's JSON), and its stamp when
    /// first read: the file is written only if it still holds that.
    pub old: String,
    pub stamp: Option<gpulint_core::fsio::Stamp>,
    /// How many findings it fixes.
    pub fixes: usize,
}

/// The change to each checked file that has applicable fixes, and how many findings that fixes.
/// A notebook whose fix cannot be put back in its cells is left alone, and said so on stderr.
pub fn fixed_texts(checked: &Checked, mode: Mode) -> (BTreeMap<PathBuf, Change>, usize) {
    let files = &checked.files;
    let mut by_file: BTreeMap<u32, Vec<&Edit>> = BTreeMap::new();
    let mut fixes: BTreeMap<u32, usize> = BTreeMap::new();
    for d in &checked.diagnostics {
        let Some(fix) = &d.fix else { continue };
        let applies = fix.applicability == Applicability::Safe || mode.unsafe_fixes;
        let file = d.span.file;
        if !applies || !files.file(file).checked {
            continue;
        }
        let edits = by_file.entry(file.0).or_default();
        // A fix whose edits overlap one already taken waits for the next round.
        let overlaps = fix.edits.iter().any(|e| {
            edits.iter().any(|o| {
                e.span.start < o.span.end.max(o.span.start + 1)
                    && o.span.start < e.span.end.max(e.span.start + 1)
            })
        });
        if overlaps {
            continue;
        }
        edits.extend(fix.edits.iter());
        *fixes.entry(file.0).or_default() += 1;
    }
    let mut out = BTreeMap::new();
    for (file, edits) in by_file {
        let id = gpulint_core::source::FileId(file);
        let source = files.file(id);
        let name = source.path.display().to_string();
        let change = match files.notebook(id) {
            Some(notebook) => match notebook.apply(&source.text, source.lines(), &edits) {
                Ok(fixed) => Change {
                    new: fixed.json,
                    shown: fixed
                        .cells
                        .into_iter()
                        .map(|(cell, old, new)| (format!("{name}:cell {cell}"), old, new))
                        .collect(),
                    old: notebook.json().to_string(),
                    stamp: files.stamp(id),
                    fixes: fixes.get(&file).copied().unwrap_or(0),
                },
                Err(reason) => {
                    eprintln!("gpulint: {name}: fix not applied: {reason}");
                    fixes.remove(&file);
                    continue;
                }
            },
            None => {
                let old = source.text.to_string();
                let (text, _) = gpulint_rules::fix::apply(&old, &edits);
                Change {
                    shown: vec![(name, old.clone(), text.clone())],
                    new: text,
                    old,
                    stamp: files.stamp(id),
                    fixes: fixes.get(&file).copied().unwrap_or(0),
                }
            }
        };
        if change.shown.iter().any(|(_, old, new)| old != new) {
            out.insert(source.path.clone(), change);
        }
    }
    (out, fixes.values().sum())
}

/// A unified diff of each file's fix (of each edited cell's, for a notebook).
pub fn write_diff(
    out: &mut impl Write,
    changes: &BTreeMap<PathBuf, Change>,
) -> std::io::Result<()> {
    for change in changes.values() {
        for (name, old, new) in &change.shown {
            let diff = similar::TextDiff::from_lines(old, new);
            write!(
                out,
                "{}",
                diff.unified_diff().context_radius(3).header(name, name)
            )?;
        }
    }
    Ok(())
}

/// Writes each fixed text over its file, whole or not at all, and goes on past a file it cannot
/// write: that file is left as it was, and returned with the reason. `walked` are the folders
/// searched: a link found in one is not written through to a file outside it (a cloned tree could
/// otherwise rewrite any file its user can write).
pub fn write_files(
    changes: &BTreeMap<PathBuf, Change>,
    walked: &[PathBuf],
) -> Vec<(PathBuf, String)> {
    let mut refused = Vec::new();
    for (path, change) in changes {
        if let Err(reason) = write_one(path, change, walked) {
            refused.push((path.clone(), reason));
        }
    }
    refused
}

fn write_one(path: &Path, change: &Change, walked: &[PathBuf]) -> Result<(), String> {
    if let Some(target) = link_out_of(path, walked) {
        return Err(format!(
            "a symbolic link to {}, outside the folder checked: not written through",
            target.display()
        ));
    }
    let expected = gpulint_core::fsio::Expected {
        bytes: change.old.as_bytes(),
        stamp: change.stamp,
    };
    gpulint_core::fsio::replace(path, &expected, change.new.as_bytes()).map_err(|e| e.to_string())
}

/// The target of `path` where it is a link (or lies under one) inside a searched folder that
/// leads out of every such folder.
pub fn link_out_of(path: &Path, walked: &[PathBuf]) -> Option<PathBuf> {
    let target = std::fs::canonicalize(path).ok()?;
    let mut inside_walked = false;
    for folder in walked {
        if !path.starts_with(folder) {
            continue;
        }
        inside_walked = true;
        if std::fs::canonicalize(folder).is_ok_and(|f| target.starts_with(f)) {
            return None;
        }
    }
    inside_walked.then_some(target)
}
