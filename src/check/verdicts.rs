//! What happens to the findings of every main program before they are shown: the configuration
//! of their file, suppression comments, one finding per place and rule, and fixes that cannot be
//! applied dropped.

use std::collections::{HashMap, HashSet};

use gpulint_core::files::Files;
use gpulint_core::source::FileId;
use gpulint_rules::Diagnostic;

use crate::config::Resolver;
use crate::files::RunFiles;
use crate::noqa::{self, Directives};

/// Applies each finding's configuration (that of its primary file): selection, per-file ignores,
/// severity. Read and syntax errors are always reported.
pub(super) fn configure(
    files: &RunFiles,
    resolver: &mut Resolver,
    diagnostics: Vec<Diagnostic>,
) -> anyhow::Result<Vec<Diagnostic>> {
    let mut out = Vec::new();
    for mut d in diagnostics {
        if d.code == "GPU999" {
            out.push(d);
            continue;
        }
        let path = files.path(d.span.file);
        if resolver.reports(path, d.code)? {
            d.severity = resolver.config_for(path)?.severity(d.code, d.severity);
            out.push(d);
        }
    }
    Ok(out)
}

/// Drops findings that a suppression comment in their primary file covers; returns the rest and how
/// many were dropped. Syntax and read errors cannot be suppressed. With `report_unused`, also returns
/// GPU900 for the gpulint codes in the checked files' suppression comments that suppressed nothing.
pub(super) fn suppress(
    files: &RunFiles,
    diagnostics: Vec<Diagnostic>,
    report_unused: bool,
) -> (Vec<Diagnostic>, usize, Vec<Diagnostic>) {
    let mut directives: HashMap<FileId, Directives> = HashMap::new();
    let mut used: HashMap<FileId, HashSet<noqa::Use>> = HashMap::new();
    let before = diagnostics.len();
    let kept: Vec<Diagnostic> = diagnostics
        .into_iter()
        .filter(|d| {
            if d.code == "GPU999" {
                return true;
            }
            let file = files.file(d.span.file);
            let line = file.lines().line_col(&file.text, d.span.start).line;
            let by = directives
                .entry(d.span.file)
                .or_insert_with(|| Directives::of(file))
                .suppressing(line, d.code);
            match by {
                Some(by) => {
                    used.entry(d.span.file).or_default().insert(by);
                    false
                }
                None => true,
            }
        })
        .collect();
    let dropped = before - kept.len();
    let mut unused = Vec::new();
    if report_unused {
        let none = HashSet::new();
        for (id, file) in files.all().filter(|(_, f)| f.checked) {
            let found = directives
                .remove(&id)
                .unwrap_or_else(|| Directives::of(file));
            unused.extend(found.unused(used.get(&id).unwrap_or(&none), file));
        }
    }
    (kept, dropped, unused)
}

/// One diagnostic per place and rule: two main programs reaching the same fork report it once, with
/// the more severe verdict (the first program, in path order, when they agree).
pub(super) fn merge(files: &RunFiles, mut diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    diagnostics.sort_by(|a, b| {
        let key = |d: &Diagnostic| (files.path(d.span.file), d.span.start, d.span.end, d.code);
        // The more severe verdict first; then the one that explains more (found through a caller).
        key(a)
            .cmp(&key(b))
            .then(b.severity.cmp(&a.severity))
            .then(b.related.len().cmp(&a.related.len()))
    });
    let mut seen = HashSet::new();
    diagnostics.retain(|d| seen.insert((d.span, d.code)));
    gpulint_rules::drop_replaced(&mut diagnostics);
    diagnostics
}

/// A finding whose fix edits another file than its own offers none (fixes are applied to the
/// finding's file). Nor does a notebook finding whose fix cannot be put back in its cells (it spans
/// two cells, or a cell holds a lone carriage return): `--fix` would refuse it, so it is not
/// counted or shown as fixable; nor one whose edits reach more than one cell: a fix stays in its
/// cell (a statement moved between cells would change what each cell does when run alone).
pub(super) fn drop_fixes_that_cannot_apply(files: &RunFiles, diagnostics: &mut [Diagnostic]) {
    for d in diagnostics {
        let elsewhere = |f: &gpulint_rules::Fix| f.edits.iter().any(|e| e.span.file != d.span.file);
        if d.fix.as_ref().is_some_and(elsewhere) {
            d.fix = None;
        }
        let file = files.file(d.span.file);
        let (Some(fix), Some(notebook)) = (&d.fix, files.notebook(d.span.file)) else {
            continue;
        };
        let edits: Vec<&gpulint_rules::Edit> = fix.edits.iter().collect();
        let cells = notebook.apply(&file.text, file.lines(), &edits);
        if !matches!(cells, Ok(fixed) if fixed.cells.len() <= 1) {
            d.fix = None;
        }
    }
}
