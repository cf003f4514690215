//! `path:line:col: CODE message`, one line per finding.

use std::io::Write;

use gpulint_rules::Diagnostic;

use crate::check::FileReport;

pub fn write(out: &mut impl Write, ordered: &[(&FileReport, &Diagnostic)]) -> std::io::Result<()> {
    for (report, d) in ordered {
        let at = super::start(report, d);
        writeln!(
            out,
            "{}:{}:{}: {} {}",
            report.path.display(),
            at.line,
            at.column,
            d.code,
            d.message
        )?;
    }
    Ok(())
}
