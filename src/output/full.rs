//! Source excerpts rendered by ariadne: the primary label, the related locations (in whichever file
//! they are), and the fix.

use std::io::Write;

use ariadne::{sources, Color, Config, IndexType, Label, Report, ReportKind};
use gpulint_python::program::Program;
use gpulint_python::source::Span;
use gpulint_rules::{Diagnostic, Severity};

pub fn write(
    out: &mut impl Write,
    program: &Program,
    ordered: &[&Diagnostic],
    color: bool,
) -> std::io::Result<()> {
    let name = |span: Span| super::path(program, span);
    let range = |span: Span| {
        let len = program.file(span.file).text.len();
        (span.start as usize).min(len)..(span.end as usize).min(len)
    };
    for d in ordered {
        let (kind, paint) = match d.severity {
            Severity::Error => (ReportKind::Error, Color::Red),
            Severity::Warning => (ReportKind::Warning, Color::Yellow),
            Severity::Info => (ReportKind::Advice, Color::Blue),
        };
        let mut builder = Report::build(kind, (name(d.span), range(d.span)))
            .with_config(
                Config::default()
                    .with_color(color)
                    .with_index_type(IndexType::Byte),
            )
            .with_code(format!("{} {}", d.code, d.name))
            .with_message(&d.message)
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
        let mut files: Vec<_> = std::iter::once(d.span.file)
            .chain(d.related.iter().map(|r| r.span.file))
            .collect();
        files.sort();
        files.dedup();
        let cache = sources(files.into_iter().map(|f| {
            let file = program.file(f);
            (crate::paths::relative(&file.path), file.text.as_str())
        }));
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
