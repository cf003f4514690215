//! GitHub Actions workflow commands: `::error file=...,line=...::message`, one per finding, which the
//! runner turns into annotations on the pull request. Lines and columns are the file's as stored:
//! in a notebook, those of the `.ipynb` JSON where the cell's source line is written (the message
//! names the cell and the line in it).

use std::io::Write;

use gpulint_core::files::Files;
use gpulint_rules::{Diagnostic, Severity};

pub fn write(
    out: &mut impl Write,
    files: &dyn Files,
    ordered: &[&Diagnostic],
) -> std::io::Result<()> {
    for d in ordered {
        let path = super::path(files, d.span);
        let start = super::stored(files, d.span, d.span.start);
        let end = super::stored(files, d.span, d.span.end);
        // As users count it, for the message: `cell N:line:col` in a notebook.
        let shown = super::location(files, d.span, d.span.start);
        let command = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        writeln!(
            out,
            "::{command} file={},line={},col={},endLine={},endColumn={},title={}::{}",
            property(&path),
            start.line,
            start.column,
            end.line,
            end.column,
            property(&format!("gpulint ({} {})", d.code, d.name)),
            data(&format!("{}:{shown}: {} {}", path, d.code, d.message)),
        )?;
    }
    Ok(())
}

/// A command's message: `%`, CR and LF escaped (the runner's own escaping rules).
fn data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A property value: also `:` and `,`, which delimit properties.
fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_follows_the_workflow_command_rules() {
        assert_eq!(data("50% done\nnext"), "50%25 done%0Anext");
        assert_eq!(property("a:b,c%"), "a%3Ab%2Cc%25");
    }
}
