//! Source excerpts rendered by ariadne: the primary label, the related locations, and the fix.

use std::io::Write;

use ariadne::{Color, Config, IndexType, Label, Report, ReportKind, Source};
use gpulint_rules::{Diagnostic, Severity};

use crate::check::FileReport;

pub fn write(
    out: &mut impl Write,
    ordered: &[(&FileReport, &Diagnostic)],
    color: bool,
) -> std::io::Result<()> {
    for (report, d) in ordered {
        let name = report.path.display().to_string();
        let len = report.text.len();
        let range = |s: gpulint_analyzer::source::Span| {
            (s.start as usize).min(len)..(s.end as usize).min(len)
        };
        let (kind, paint) = match d.severity {
            Severity::Error => (ReportKind::Error, Color::Red),
            Severity::Warning => (ReportKind::Warning, Color::Yellow),
            Severity::Info => (ReportKind::Advice, Color::Blue),
        };
        let mut builder = Report::build(kind, (name.clone(), range(d.span)))
            .with_config(
                Config::default()
                    .with_color(color)
                    .with_index_type(IndexType::Byte),
            )
            .with_code(format!("{} {}", d.code, d.name))
            .with_message(&d.message)
            .with_label(
                Label::new((name.clone(), range(d.span)))
                    .with_message(&d.label)
                    .with_color(paint)
                    .with_order(0),
            );
        for (i, related) in d.related.iter().enumerate() {
            builder = builder.with_label(
                Label::new((name.clone(), range(related.span)))
                    .with_message(&related.message)
                    .with_color(Color::Cyan)
                    .with_order(i as i32 + 1),
            );
        }
        let rendered = builder.with_help(&d.help).finish();
        let mut buffer = Vec::new();
        rendered.write(
            (name.clone(), Source::from(report.text.as_str())),
            &mut buffer,
        )?;
        out.write_all(&buffer)?;
        writeln!(out)?;
    }
    Ok(())
}
