//! Source excerpts rendered by ariadne: the primary label, the related locations (in whichever file
//! they are), and the fix. A notebook's excerpt is the cell's source, named `path:cell N`, so its
//! lines count as in the cell.

use std::io::Write;

use ariadne::{sources, Color, Config, IndexType, Label, Report, ReportKind};
use gpulint_core::files::Files;
use gpulint_core::source::Span;
use gpulint_rules::{Diagnostic, Severity};

pub fn write(
    out: &mut impl Write,
    files: &dyn Files,
    ordered: &[&Diagnostic],
    color: bool,
    unsafe_fixes: bool,
) -> std::io::Result<()> {
    // The text a span is shown in: its file's, or its notebook cell's (from `base`).
    let part = |span: Span| -> (String, &str, usize) {
        let file = files.file(span.file);
        let path = crate::paths::relative(&file.path);
        match file.cell_at(span.start) {
            Some((cell, bytes)) => (
                format!("{path}:cell {cell}"),
                &file.text[bytes.clone()],
                bytes.start,
            ),
            None => (path, &*file.text, 0),
        }
    };
    let name = |span: Span| part(span).0;
    let range = |span: Span| {
        let (_, text, base) = part(span);
        let at = |offset: u32| (offset as usize).saturating_sub(base).min(text.len());
        at(span.start)..at(span.end).max(at(span.start))
    };
    for d in ordered {
        let (kind, paint) = match d.severity {
            Severity::Error => (ReportKind::Error, Color::Red),
            Severity::Warning => (ReportKind::Warning, Color::Yellow),
            Severity::Info => (ReportKind::Advice, Color::Blue),
        };
        // `[*]`: `--fix` fixes it (ruff's mark).
        let message = format!("{}{}", super::fixable_mark(d, unsafe_fixes), d.message);
        let mut builder = Report::build(kind, (name(d.span), range(d.span)))
            .with_config(
                Config::default()
                    .with_color(color)
                    .with_index_type(IndexType::Byte),
            )
            .with_code(format!("{} {}", d.code, d.name))
            .with_message(message)
            .with_label(
                Label::new((name(d.span), range(d.span)))
                    .with_message(&d.label)
                    .with_color(paint)
                    .with_order(0),
            );
        for (i, related) in d.related.iter().enumerate() {
            builder = builder.with_label(
                Label::new((name(related.span), range(related.span)))
                    .with_message(&related.message)
                    .with_color(Color::Cyan)
                    .with_order(i as i32 + 1),
            );
        }
        let mut parts: Vec<(String, &str)> = std::iter::once(d.span)
            .chain(d.related.iter().map(|r| r.span))
            .map(|span| {
                let (name, text, _) = part(span);
                (name, text)
            })
            .collect();
        parts.sort_by(|a, b| a.0.cmp(&b.0));
        parts.dedup_by(|a, b| a.0 == b.0);
        let cache = sources(parts);
        let mut buffer = Vec::new();
        builder
            .with_help(&d.help)
            .finish()
            .write(cache, &mut buffer)?;
        out.write_all(&buffer)?;
        writeln!(out)?;
    }
    Ok(())
}
