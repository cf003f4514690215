//! `--fix`, `--unsafe-fixes` and `--diff`: gather the edits of the findings whose fix applies, apply
//! them per file (overlapping edits wait for the next round), and check again until nothing changes.

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

/// The fixed text of each checked file that has applicable fixes, and how many findings that fixes.
pub fn fixed_texts(checked: &Checked, mode: Mode) -> (BTreeMap<PathBuf, (String, String)>, usize) {
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
        let (text, _) = gpulint_rules::fix::apply(&source.text, &edits);
        if text != source.text {
            out.insert(source.path.clone(), (source.text.clone(), text));
        }
    }
    (out, fixes.values().sum())
}

/// A unified diff of each file's fix.
pub fn write_diff(
    out: &mut impl Write,
    changes: &BTreeMap<PathBuf, (String, String)>,
) -> std::io::Result<()> {
    for (path, (old, new)) in changes {
        let name = path.display().to_string();
        let diff = similar::TextDiff::from_lines(old, new);
        write!(
            out,
            "{}",
            diff.unified_diff().context_radius(3).header(&name, &name)
        )?;
    }
    Ok(())
}

/// Writes the fixed texts to their files.
pub fn write_files(changes: &BTreeMap<PathBuf, (String, String)>) -> anyhow::Result<()> {
    for (path, (_, new)) in changes {
        std::fs::write(path, new)
            .map_err(|e| anyhow::anyhow!("cannot write the fix to {}: {e}", path.display()))?;
    }
    Ok(())
}
