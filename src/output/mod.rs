//! Output formats. They read diagnostics and file reports; none of them looks at syntax trees.

mod concise;
mod full;
mod github;
mod gitlab;
mod json;
mod junit;
mod sarif;

use std::io::{IsTerminal, Write};

use gpulint_core::files::Files;
use gpulint_core::source::{LineCol, Location, Span};
use gpulint_rules::{Diagnostic, Severity};

use crate::check::Checked;
use crate::cli::{Color, OutputFormat};

/// How to print a report.
pub struct Options {
    pub format: OutputFormat,
    pub color: bool,
    /// Findings only, no summary.
    pub quiet: bool,
    /// Counts per rule instead of findings.
    pub statistics: bool,
    /// The paths searched, named when no file to check was found under them.
    pub paths: Vec<std::path::PathBuf>,
    /// `--unsafe-fixes`: unsafe fixes count as fixable by `--fix` too.
    pub unsafe_fixes: bool,
}

pub fn write(out: &mut impl Write, checked: &Checked, options: &Options) -> anyhow::Result<()> {
    let Options {
        format,
        color,
        quiet,
        statistics,
        unsafe_fixes,
        ..
    } = *options;
    let files: &dyn Files = &checked.files;
    let mut ordered: Vec<&Diagnostic> = checked.diagnostics.iter().collect();
    ordered.sort_by_cached_key(|d| (path(files, d.span), at(files, d.span), d.code));
    for (path, message) in &checked.internal_errors {
        eprintln!(
            "gpulint: internal error while checking {}: {message} (please report this)",
            path.display()
        );
    }
    if statistics {
        return write_statistics(out, &ordered, format);
    }
    match format {
        OutputFormat::Full => full::write(out, files, &ordered, color, unsafe_fixes)?,
        OutputFormat::Concise => concise::write(out, files, &ordered, unsafe_fixes)?,
        OutputFormat::Json => json::write(out, files, &ordered)?,
        OutputFormat::JsonLines => json::write_lines(out, files, &ordered)?,
        OutputFormat::Github => github::write(out, files, &ordered)?,
        OutputFormat::Gitlab => gitlab::write(out, files, &ordered)?,
        OutputFormat::Sarif => sarif::write(out, files, &ordered)?,
        OutputFormat::Junit => junit::write(out, files, &ordered)?,
    }
    let human = matches!(format, OutputFormat::Full | OutputFormat::Concise) && !quiet;
    if !files.ids().any(|id| files.file(id).checked) {
        // Nothing was checked: "All checks passed!" would claim too much.
        let paths: Vec<String> = options
            .paths
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        let nothing = format!(
            "No Python files or notebooks found under {}",
            paths.join(", ")
        );
        match human {
            true => writeln!(out, "{nothing}.")?,
            false => eprintln!("gpulint: {nothing}"),
        }
        return Ok(());
    }
    if human {
        summary(out, files, &ordered, checked)?;
        fix_summary(out, checked, &ordered, unsafe_fixes)?;
    }
    Ok(())
}

/// Whether `--fix` (with `--unsafe-fixes` when `unsafe_fixes`) would fix `d`.
fn fixable(d: &Diagnostic, unsafe_fixes: bool) -> bool {
    d.fix
        .as_ref()
        .is_some_and(|f| f.applicability == gpulint_rules::Applicability::Safe || unsafe_fixes)
}

/// `[*] ` before the message of a finding `--fix` would fix (ruff's mark), else nothing.
fn fixable_mark(d: &Diagnostic, unsafe_fixes: bool) -> &'static str {
    match fixable(d, unsafe_fixes) {
        true => "[*] ",
        false => "",
    }
}

/// What `--fix` did, and what it could do: the findings marked `[*]`, and those only
/// `--unsafe-fixes` would add, in ruff's words.
fn fix_summary(
    out: &mut impl Write,
    checked: &Checked,
    ordered: &[&Diagnostic],
    unsafe_fixes: bool,
) -> std::io::Result<()> {
    if checked.fixed > 0 {
        let s = if checked.fixed == 1 { "" } else { "s" };
        writeln!(out, "Fixed {} finding{s}.", checked.fixed)?;
    }
    let marked = ordered.iter().filter(|d| fixable(d, unsafe_fixes)).count();
    let unsafe_ = ordered
        .iter()
        .filter(|d| d.fix.is_some() && !fixable(d, unsafe_fixes))
        .count();
    let s = if unsafe_ == 1 { "" } else { "es" };
    let hidden = format!("{unsafe_} hidden fix{s} can be enabled with the `--unsafe-fixes` option");
    match (marked, unsafe_) {
        (0, 0) => Ok(()),
        (_, 0) => writeln!(out, "[*] {marked} fixable with the `--fix` option."),
        (0, _) => writeln!(out, "No fixes available ({hidden})."),
        _ => writeln!(
            out,
            "[*] {marked} fixable with the `--fix` option ({hidden})."
        ),
    }
}

/// `count  CODE  name` per rule, most frequent first (as `ruff --statistics`); JSON with `--output-format json`.
fn write_statistics(
    out: &mut impl Write,
    ordered: &[&Diagnostic],
    format: OutputFormat,
) -> anyhow::Result<()> {
    let mut counts: Vec<(&'static str, &'static str, usize)> = Vec::new();
    for d in ordered {
        match counts.iter_mut().find(|(code, _, _)| *code == d.code) {
            Some(row) => row.2 += 1,
            None => counts.push((d.code, d.name, 1)),
        }
    }
    counts.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(b.0)));
    if matches!(format, OutputFormat::Json | OutputFormat::JsonLines) {
        let rows: Vec<serde_json::Value> = counts
            .iter()
            .map(|(code, name, count)| serde_json::json!({"code": code, "name": name, "count": count}))
            .collect();
        serde_json::to_writer_pretty(&mut *out, &rows)?;
        writeln!(out)?;
        return Ok(());
    }
    for (code, name, count) in counts {
        writeln!(out, "{count:>5}\t{code}\t{name}")?;
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

/// The file a span is in, as shown: relative to the working directory.
fn path(files: &dyn Files, span: Span) -> String {
    crate::paths::relative(&files.file(span.file).path)
}

/// The repository named in Cargo.toml's `repository`, empty while it names none.
const REPOSITORY: &str = env!("CARGO_PKG_REPOSITORY");

/// Where a rule is documented, as an absolute address: its section of docs/rules.md in the
/// repository Cargo.toml names; `None` while it names none (a path in gpulint's own tree means
/// nothing where the report is read, and `gpulint rule CODE` prints the same text).
pub(crate) fn rule_url(code: &str) -> Option<String> {
    docs_url(REPOSITORY, code)
}

/// The rule's section of docs/rules.md in `repository`, if one is named.
fn docs_url(repository: &str, code: &str) -> Option<String> {
    let anchor = code.to_ascii_lowercase();
    match repository.trim_end_matches('/') {
        "" => None,
        repo => Some(format!("{repo}/blob/main/docs/rules.md#{anchor}")),
    }
}

/// Where `offset` of the span's file is, as users count (a notebook's in its cell): the one
/// place every format takes positions from.
fn location(files: &dyn Files, span: Span, offset: u32) -> Location {
    files.file(span.file).location(offset)
}

/// Where `offset` of the span's file is in the file as stored: a notebook's in its `.ipynb`
/// JSON, for the formats whose viewers annotate the file itself (`github`, `sarif`, `gitlab`).
fn stored(files: &dyn Files, span: Span, offset: u32) -> LineCol {
    files.stored_line_col(span.file, offset)
}

/// Where a span starts in its file's text (for ordering; notebooks' cells are in order).
fn at(files: &dyn Files, span: Span) -> LineCol {
    files.file(span.file).line_col(span.start)
}

fn summary(
    out: &mut impl Write,
    files: &dyn Files,
    ordered: &[&Diagnostic],
    checked: &Checked,
) -> std::io::Result<()> {
    // What is not shown, and why.
    let hidden: Vec<(usize, &str)> = [
        (checked.suppressed, "suppressed by `noqa` comments"),
        (checked.baselined, "hidden by the baseline"),
    ]
    .into_iter()
    .filter(|(n, _)| *n > 0)
    .collect();
    // What was not seen: a finding there may be missing.
    let unseen = match checked.not_followed {
        0 => String::new(),
        1 => " 1 function was not analysed (a budget ran out; `--verbose` names it).".into(),
        n => {
            format!(" {n} functions were not analysed (a budget ran out; `--verbose` names them).")
        }
    };
    let listed = |more: &str| -> Vec<String> {
        hidden
            .iter()
            .map(|(n, why)| format!("{n}{more} {why}"))
            .collect()
    };
    if ordered.is_empty() {
        return match hidden.is_empty() {
            true => writeln!(out, "All checks passed!{unseen}"),
            false => writeln!(
                out,
                "All checks passed! ({}){unseen}",
                listed("").join("; ")
            ),
        };
    }
    let silenced: String = listed(" more").iter().map(|h| format!("; {h}")).collect();
    let count = |s: Severity| ordered.iter().filter(|d| d.severity == s).count();
    let (errors, warnings, infos) = (
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Info),
    );
    let shown = {
        let mut paths: Vec<_> = ordered.iter().map(|d| path(files, d.span)).collect();
        paths.dedup();
        paths.len()
    };
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    // Info findings do not fail the run by default: counted apart, and only when there are some.
    let infos = match infos {
        0 => String::new(),
        n => format!(", {n} info"),
    };
    writeln!(
        out,
        "Found {} ({}, {}{infos}) in {}{silenced}.{unseen}",
        plural(ordered.len(), "finding"),
        plural(errors, "error"),
        plural(warnings, "warning"),
        plural(shown, "file")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docs_urls_point_at_the_rules_section() {
        assert_eq!(docs_url("", "GPU001"), None);
        assert_eq!(
            docs_url("https://github.com/o/gpulint/", "GPU015").as_deref(),
            Some("https://github.com/o/gpulint/blob/main/docs/rules.md#gpu015")
        );
    }
}
