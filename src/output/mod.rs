//! Output formats. They read diagnostics and file reports; none of them looks at syntax trees.

mod concise;
mod full;
mod json;

use std::io::{IsTerminal, Write};

use gpulint_analyzer::program::Program;
use gpulint_analyzer::source::{LineCol, Span};
use gpulint_rules::{Diagnostic, Severity};

use crate::check::Checked;
use crate::cli::{Color, OutputFormat};

pub fn write(
    out: &mut impl Write,
    checked: &Checked,
    format: OutputFormat,
    color: bool,
) -> anyhow::Result<()> {
    let program = &checked.program;
    let mut ordered: Vec<&Diagnostic> = checked.diagnostics.iter().collect();
    ordered.sort_by(|a, b| {
        let key = |d: &Diagnostic| (path(program, d.span), at(program, d.span), d.code);
        key(a).cmp(&key(b))
    });
    for (path, message) in &checked.internal_errors {
        eprintln!(
            "gpulint: internal error while checking {}: {message} (please report this)",
            path.display()
        );
    }
    match format {
        OutputFormat::Full => full::write(out, program, &ordered, color)?,
        OutputFormat::Concise => concise::write(out, program, &ordered)?,
        OutputFormat::Json => json::write(out, program, &ordered)?,
    }
    if format != OutputFormat::Json {
        summary(out, program, &ordered)?;
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

/// The file a span is in, as shown.
fn path(program: &Program, span: Span) -> &std::path::Path {
    &program.file(span.file).path
}

/// Where a span starts.
fn at(program: &Program, span: Span) -> LineCol {
    let file = program.file(span.file);
    file.lines.line_col(&file.text, span.start)
}

fn summary(
    out: &mut impl Write,
    program: &Program,
    ordered: &[&Diagnostic],
) -> std::io::Result<()> {
    if ordered.is_empty() {
        return writeln!(out, "All checks passed!");
    }
    let count = |s: Severity| ordered.iter().filter(|d| d.severity == s).count();
    let (errors, warnings) = (count(Severity::Error), count(Severity::Warning));
    let files = {
        let mut paths: Vec<_> = ordered.iter().map(|d| path(program, d.span)).collect();
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
