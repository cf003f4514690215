//! GitLab Code Quality report: a JSON array of issues with stable fingerprints, so the merge request
//! widget shows which findings are new.

use std::io::Write;

use gpulint_python::program::Program;
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
    program: &Program,
    ordered: &[&Diagnostic],
) -> anyhow::Result<()> {
    let fingerprints =
        crate::fingerprint::fingerprints(program, ordered, &crate::paths::working_dir());
    let issues: Vec<Issue> = ordered
        .iter()
        .zip(fingerprints)
        .map(|(d, fingerprint)| {
            let file = program.file(d.span.file);
            let start = super::location(program, d.span, d.span.start);
            let end = super::location(program, d.span, d.span.end).line;
            // Lines count in the cell for a notebook: the description names it.
            let cell = start
                .cell
                .map(|n| format!(" (cell {n})"))
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
                    lines: Lines {
                        begin: start.line,
                        end,
                    },
                },
            }
        })
        .collect();
    serde_json::to_writer_pretty(&mut *out, &issues)?;
    writeln!(out)?;
    Ok(())
}
