//! Findings of code in installed packages (see `gpulint_python::program::Environment`): shown at
//! the project's call that ran the package's code, with the package's line as a related
//! location; never in a package's file, and never with a fix made for another place.

use gpulint_core::source::Span;
use gpulint_python::program::Program;
use gpulint_rules::{Diagnostic, Related};

/// How many of a package's lines one finding shows.
const MAX_PACKAGE_LINES: usize = 2;

/// `found`, placed in the project: a finding in a package's file is dropped (the interpreter moved
/// every place it could to the project's call: what is left there ran at the package's import, or
/// from no call of the project's); one at a call the interpreter moved places to shows those
/// places, and offers no fix; a fix that would edit a package is dropped.
pub(super) fn place(
    program: &Program,
    found: Vec<Diagnostic>,
    crossings: &[(Span, Span)],
) -> Vec<Diagnostic> {
    if !program.reads_environment() {
        return found;
    }
    let mut out = Vec::with_capacity(found.len());
    for mut d in found {
        if program.in_environment(d.span.file) {
            continue;
        }
        let inside: Vec<Span> = crossings
            .iter()
            .filter(|(call, _)| *call == d.span)
            .map(|(_, inside)| *inside)
            .collect();
        if let Some(first) = inside.first() {
            d.fix = None;
            let package = program
                .environment_package(first.file)
                .unwrap_or_else(|| "an installed package".into());
            d.message = format!("{} (inside `{package}`, run by this call)", d.message);
        }
        let mut shown = 0;
        for (i, span) in inside.iter().enumerate() {
            if inside[..i].contains(span) || shown == MAX_PACKAGE_LINES {
                continue;
            }
            shown += 1;
            let package = program
                .environment_package(span.file)
                .unwrap_or_else(|| "an installed package".into());
            d.related.push(Related {
                span: *span,
                message: format!("the call runs this line of the installed package `{package}`"),
            });
        }
        let edits_package = d.fix.as_ref().is_some_and(|fix| {
            fix.edits
                .iter()
                .any(|e| program.in_environment(e.span.file))
        });
        if edits_package {
            d.fix = None;
        }
        out.push(d);
    }
    out
}
