//! Output formats. They read diagnostics and file reports; none of them looks at syntax trees.

mod concise;
mod full;
mod json;

use std::io::{IsTerminal, Write};

use gpulint_analyzer::source::LineCol;
use gpulint_rules::{Diagnostic, Severity};

use crate::check::FileReport;
use crate::cli::{Color, OutputFormat};

pub fn write(
    out: &mut impl Write,
    reports: &[FileReport],
    format: OutputFormat,
    color: bool,
) -> anyhow::Result<()> {
    let mut ordered: Vec<(&FileReport, &Diagnostic)> = reports
        .iter()
        .flat_map(|r| r.diagnostics.iter().map(move |d| (r, d)))
        .collect();
    ordered.sort_by(|(ra, da), (rb, db)| {
        (ra.path.as_path(), start(ra, da), da.code).cmp(&(
            rb.path.as_path(),
            start(rb, db),
            db.code,
        ))
    });
    for report in reports {
        if let Some(message) = &report.internal_error {
            eprintln!(
                "gpulint: internal error while checking {}: {message} (please report this)",
                report.path.display()
            );
        }
    }
    match format {
        OutputFormat::Full => full::write(out, &ordered, color)?,
        OutputFormat::Concise => concise::write(out, &ordered)?,
        OutputFormat::Json => json::write(out, &ordered)?,
    }
    if format != OutputFormat::Json {
        summary(out, &ordered)?;
    }
    Ok(())
}

/// Whether to colour: `--color`, then NO_COLOR, then whether stdout is a terminal.
pub fn use_color(choice: Color) -> bool {
    match choice {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::env::var_os("NO_COLOR").is_none() && std::io::stdout().is_terminal(),
    }
}

fn start(report: &FileReport, d: &Diagnostic) -> LineCol {
    report.lines.line_col(&report.text, d.span.start)
}

fn summary(out: &mut impl Write, ordered: &[(&FileReport, &Diagnostic)]) -> std::io::Result<()> {
    if ordered.is_empty() {
        return writeln!(out, "All checks passed!");
    }
    let count = |s: Severity| ordered.iter().filter(|(_, d)| d.severity == s).count();
    let (errors, warnings) = (count(Severity::Error), count(Severity::Warning));
    let files = {
        let mut paths: Vec<_> = ordered.iter().map(|(r, _)| &r.path).collect();
        paths.dedup();
        paths.len()
    };
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    writeln!(
        out,
        "Found {} ({}, {}) in {}.",
        plural(ordered.len(), "finding"),
        plural(errors, "error"),
        plural(warnings, "warning"),
        plural(files, "file")
    )
}
