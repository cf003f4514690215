//! `path:line:col: CODE message`, one line per finding.

use std::io::Write;

use gpulint_python::program::Program;
use gpulint_rules::Diagnostic;

pub fn write(
    out: &mut impl Write,
    program: &Program,
    ordered: &[&Diagnostic],
) -> std::io::Result<()> {
    for d in ordered {
        let at = super::at(program, d.span);
        writeln!(
            out,
            "{}:{}:{}: {} {}",
            super::path(program, d.span),
            at.line,
            at.column,
            d.code,
            d.message
        )?;
    }
    Ok(())
}
