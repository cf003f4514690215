//! `path:line:col: CODE [severity] message`, one line per finding (`path:cell N:line:col:` in a
//! notebook), with `[*]` after the severity where `--fix` would fix it, as ruff marks it.

use std::io::Write;

use gpulint_core::files::Files;
use gpulint_rules::Diagnostic;

pub fn write(
    out: &mut impl Write,
    files: &dyn Files,
    ordered: &[&Diagnostic],
    unsafe_fixes: bool,
) -> std::io::Result<()> {
    for d in ordered {
        writeln!(
            out,
            "{}:{}: {} [{}] {}{}",
            super::path(files, d.span),
            super::location(files, d.span, d.span.start),
            d.code,
            d.severity.as_str(),
            super::fixable_mark(d, unsafe_fixes),
            d.message
        )?;
    }
    Ok(())
}
