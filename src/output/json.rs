//! A JSON array shaped like ruff's `--output-format json`, with `name`, `severity` and `related`.
//! In a notebook, rows count in the cell, and `cell` (1-based) says which, as ruff writes it; in a
//! script `cell` is `null`, as in ruff's. `url` is the rule's documentation as an absolute address,
//! or `null` while there is none (ruff's `null` for a rule without a page).

use std::io::Write;

use gpulint_rules::Diagnostic;
use serde::Serialize;

use gpulint_core::files::Files;
use gpulint_core::source::Span;

#[derive(Serialize)]
struct Location {
    row: u32,
    column: u32,
}

#[derive(Serialize)]
struct RelatedLocation {
    filename: String,
    cell: Option<u32>,
    location: Location,
    end_location: Location,
    message: String,
}

/// ruff's shape for a fix.
#[derive(Serialize)]
struct FixJson {
    applicability: &'static str,
    message: String,
    edits: Vec<EditJson>,
}

#[derive(Serialize)]
struct EditJson {
    content: String,
    cell: Option<u32>,
    location: Location,
    end_location: Location,
}

#[derive(Serialize)]
struct Message {
    code: &'static str,
    name: &'static str,
    severity: &'static str,
    message: String,
    filename: String,
    cell: Option<u32>,
    location: Location,
    end_location: Location,
    fix: Option<FixJson>,
    noqa_row: u32,
    /// The rule's section of the rule reference, where it has an absolute address.
    url: Option<String>,
    help: String,
    related: Vec<RelatedLocation>,
}

pub fn write(
    out: &mut impl Write,
    files: &dyn Files,
    ordered: &[&Diagnostic],
) -> anyhow::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &messages(files, ordered))?;
    writeln!(out)?;
    Ok(())
}

/// One JSON object per line: streamable, and appendable across runs.
pub fn write_lines(
    out: &mut impl Write,
    files: &dyn Files,
    ordered: &[&Diagnostic],
) -> anyhow::Result<()> {
    for message in messages(files, ordered) {
        serde_json::to_writer(&mut *out, &message)?;
        writeln!(out)?;
    }
    Ok(())
}

fn messages(files: &dyn Files, ordered: &[&Diagnostic]) -> Vec<Message> {
    // Absolute, as ruff's JSON has it: editors and scripts open it from anywhere.
    let filename = |span: Span| crate::paths::absolute(&files.file(span.file).path);
    let at = |span: Span, offset| {
        let lc = super::location(files, span, offset);
        Location {
            row: lc.line,
            column: lc.column,
        }
    };
    let cell = |span: Span| super::location(files, span, span.start).cell;
    let messages: Vec<Message> = ordered
        .iter()
        .map(|d| Message {
            code: d.code,
            name: d.name,
            severity: d.severity.as_str(),
            message: d.message.clone(),
            location: at(d.span, d.span.start),
            end_location: at(d.span, d.span.end),
            noqa_row: super::location(files, d.span, d.span.start).line,
            cell: cell(d.span),
            fix: d.fix.as_ref().map(|f| FixJson {
                applicability: f.applicability.as_str(),
                message: f.message.clone(),
                edits: f
                    .edits
                    .iter()
                    .map(|e| EditJson {
                        content: e.content.clone(),
                        cell: cell(e.span),
                        location: at(e.span, e.span.start),
                        end_location: at(e.span, e.span.end),
                    })
                    .collect(),
            }),
            url: super::rule_url(d.code),
            help: d.help.clone(),
            related: d
                .related
                .iter()
                .map(|r| RelatedLocation {
                    filename: filename(r.span),
                    cell: cell(r.span),
                    location: at(r.span, r.span.start),
                    end_location: at(r.span, r.span.end),
                    message: r.message.clone(),
                })
                .collect(),
            filename: filename(d.span),
        })
        .collect();
    messages
}
