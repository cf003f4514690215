//! GitLab Code Quality report: a JSON array of issues with stable fingerprints, so the merge request
//! widget shows which findings are new.

use std::io::Write;

use gpulint_core::files::Files;
use gpulint_rules::{Diagnostic, Severity};
use serde::Serialize;

#[derive(Serialize)]
struct Issue {
    description: String,
    check_name: String,
    fingerprint: String,
    severity: &'static str,
    location: Location,
}

#[derive(Serialize)]
struct Location {
    path: String,
    lines: Lines,
}

#[derive(Serialize)]
struct Lines {
    begin: u32,
    end: u32,
}

pub fn write(
    out: &mut impl Write,
    files: &dyn Files,
    ordered: &[&Diagnostic],
) -> anyhow::Result<()> {
    let fingerprints =
        crate::fingerprint::fingerprints(files, ordered, &crate::paths::working_dir());
    let issues: Vec<Issue> = ordered
        .iter()
        .zip(fingerprints)
        .map(|(d, fingerprint)| {
            let file = files.file(d.span.file);
            // The file's lines as stored (a notebook's JSON lines): the merge request's diff shows
            // them. The description names a notebook's cell and the line in it.
            let begin = super::stored(files, d.span, d.span.start).line;
            let end = super::stored(files, d.span, d.span.end).line;
            let shown = super::location(files, d.span, d.span.start);
            let cell = shown
                .cell
                .map(|n| format!(" (cell {n}, line {})", shown.line))
                .unwrap_or_default();
            Issue {
                description: format!("{} {}{cell}", d.code, d.message),
                check_name: format!("{} {}", d.code, d.name),
                fingerprint,
                severity: match d.severity {
                    Severity::Error => "major",
                    Severity::Warning => "minor",
                    Severity::Info => "info",
                },
                location: Location {
                    path: crate::paths::relative(&file.path),
                    lines: Lines { begin, end },
                },
            }
        })
        .collect();
    serde_json::to_writer_pretty(&mut *out, &issues)?;
    writeln!(out)?;
    Ok(())
}
