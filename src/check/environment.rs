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
        show_imports(program, &mut d);
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

/// For a place in a package the finding shows that no call of the project's led to (what the
/// package did when it was imported), the line of the finding's file that imports the package.
fn show_imports(program: &Program, d: &mut Diagnostic) {
    let mut packages: Vec<String> = Vec::new();
    for related in &d.related {
        if let Some(package) = program.environment_package(related.span.file) {
            if !packages.contains(&package) {
                packages.push(package);
            }
        }
    }
    for package in packages {
        let Some(span) = imported_at(program, d.span.file, &package) else {
            continue;
        };
        if d.related.iter().all(|r| r.span != span) && d.span != span {
            d.related.push(Related {
                span,
                message: format!("the installed package `{package}` is imported here"),
            });
        }
    }
}

/// The first statement of `file` that imports `package` (`import package...`, `from package...`),
/// read from its text.
fn imported_at(
    program: &Program,
    file: gpulint_core::source::FileId,
    package: &str,
) -> Option<Span> {
    let text = program.file(file).text.unpacked();
    let mut offset = 0usize;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let body = line.trim_start();
        let names = match (body.strip_prefix("import "), body.strip_prefix("from ")) {
            (Some(rest), _) => rest.split(',').map(str::trim).collect::<Vec<_>>(),
            (None, Some(rest)) => vec![rest.split_whitespace().next().unwrap_or_default()],
            (None, None) => continue,
        };
        let names_it = names
            .iter()
            .any(|name| name.split(['.', ' ']).next() == Some(package));
        if names_it {
            let begin = start + (line.len() - body.len());
            let end = start + line.trim_end().len();
            return Some(Span::new(file, begin as u32, end as u32));
        }
    }
    None
}
