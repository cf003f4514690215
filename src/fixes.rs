//! `--fix`, `--unsafe-fixes` and `--diff`: gather the edits of the findings whose fix applies, apply
//! them per file (overlapping edits wait for the next round), and check again until nothing changes.
//! A notebook's edits go into its cells' sources; the rest of its JSON is left as it was.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use gpulint_rules::{Applicability, Edit};

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
}

/// The change to each checked file that has applicable fixes, and how many findings that fixes.
/// A notebook whose fix cannot be put back in its cells is left alone, and said so on stderr.
pub fn fixed_texts(checked: &Checked, mode: Mode) -> (BTreeMap<PathBuf, Change>, usize) {
    let program = &checked.program;
    let mut by_file: BTreeMap<u32, Vec<&Edit>> = BTreeMap::new();
    let mut fixes: BTreeMap<u32, usize> = BTreeMap::new();
    for d in &checked.diagnostics {
        let Some(fix) = &d.fix else { continue };
        let applies = fix.applicability == Applicability::Safe || mode.unsafe_fixes;
        let file = d.span.file;
        if !applies || !program.file(file).checked {
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
        let source = program.file(gpulint_python::source::FileId(file));
        let name = source.path.display().to_string();
        let change = match &source.notebook {
            Some(notebook) => match notebook.apply(&source.text, source.lines(), &edits) {
                Ok(fixed) => Change {
                    new: fixed.json,
                    shown: fixed
                        .cells
                        .into_iter()
                        .map(|(cell, old, new)| (format!("{name}:cell {cell}"), old, new))
                        .collect(),
                },
                Err(reason) => {
                    eprintln!("gpulint: {name}: fix not applied: {reason}");
                    fixes.remove(&file);
                    continue;
                }
            },
            None => {
                let (text, _) = gpulint_rules::fix::apply(&source.text, &edits);
                Change {
                    shown: vec![(name, source.text.to_string(), text.clone())],
                    new: text,
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

/// Writes the fixed texts to their files.
pub fn write_files(changes: &BTreeMap<PathBuf, Change>) -> anyhow::Result<()> {
    for (path, change) in changes {
        std::fs::write(path, &change.new)
            .map_err(|e| anyhow::anyhow!("cannot write the fix to {}: {e}", path.display()))?;
    }
    Ok(())
}
