//! `path:line:col: CODE message`, one line per finding (`path:cell N:line:col:` in a notebook).

use std::io::Write;

use gpulint_python::program::Program;
use gpulint_rules::Diagnostic;

pub fn write(
    out: &mut impl Write,
    program: &Program,
    ordered: &[&Diagnostic],
) -> std::io::Result<()> {
    for d in ordered {
        writeln!(
            out,
            "{}:{}: {} {}",
            super::path(program, d.span),
            super::location(program, d.span, d.span.start),
            d.code,
            d.message
        )?;
    }
    Ok(())
}
