//! A check's result as the editor needs it: each finding as an LSP diagnostic, with its fix and
//! its "disable for this line" edit already in positions, and the files the check read.

use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::path::PathBuf;

use gpulint_python::program::{normalize, Program};
use gpulint_python::source::Span;
use gpulint_rules::{Applicability, Severity};
use lsp_types::{
    CodeDescription, Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location,
    NumberOrString, TextEdit, Url,
};

use super::convert::{self, Encoding};
use crate::check::Checked;

/// What one check found, and what it read.
#[derive(Default)]
pub struct Report {
    /// Every file of the check's program (normalised): a change to one of them on disk calls for
    /// the check again.
    pub read: HashSet<PathBuf>,
    pub findings: Vec<Finding>,
}

pub struct Finding {
    /// The file the finding is in (normalised).
    pub path: PathBuf,
    /// The hash of that file's text as the check read it: positions hold only for that text.
    pub text_hash: u64,
    pub diagnostic: Diagnostic,
    pub fix: Option<FixEdits>,
    /// Adds `# noqa: CODE` to the finding's line; `None` where a comment would not be one.
    pub noqa: Option<TextEdit>,
}

pub struct FixEdits {
    pub message: String,
    pub safe: bool,
    pub edits: Vec<TextEdit>,
}

pub fn text_hash(text: &str) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

pub fn report(checked: &Checked, encoding: Encoding) -> Report {
    let program = &checked.program;
    let read = program.files().map(|(_, f)| normalize(&f.path)).collect();
    let findings = checked
        .diagnostics
        .iter()
        .filter_map(|d| finding(program, d, encoding))
        .collect();
    Report { read, findings }
}

/// `None` for a finding in a notebook: its positions count in cells, which the server does not map.
fn finding(
    program: &Program,
    d: &gpulint_rules::Diagnostic,
    encoding: Encoding,
) -> Option<Finding> {
    let file = program.file(d.span.file);
    if file.cells.is_some() {
        return None;
    }
    let range = |span: Span| {
        let f = program.file(span.file);
        convert::range(&f.text, f.lines(), span.start, span.end, encoding)
    };
    let related = d
        .related
        .iter()
        .filter(|r| program.file(r.span.file).cells.is_none())
        .filter_map(|r| {
            Some(DiagnosticRelatedInformation {
                location: Location::new(
                    convert::path_uri(&program.file(r.span.file).path)?,
                    range(r.span),
                ),
                message: r.message.clone(),
            })
        })
        .collect();
    let message = match d.help.is_empty() {
        true => d.message.clone(),
        false => format!("{}\nhelp: {}", d.message, d.help),
    };
    let diagnostic = Diagnostic {
        range: range(d.span),
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
            Severity::Info => DiagnosticSeverity::INFORMATION,
        }),
        code: Some(NumberOrString::String(d.code.to_string())),
        // Only an absolute address, which there is once the project names its repository.
        code_description: crate::output::rule_url(d.code)
            .and_then(|url| Url::parse(&url).ok())
            .map(|href| CodeDescription { href }),
        source: Some("gpulint".to_string()),
        message,
        related_information: Some(related),
        tags: None,
        data: None,
    };
    let fix = d.fix.as_ref().map(|fix| FixEdits {
        message: fix.message.clone(),
        safe: fix.applicability == Applicability::Safe,
        edits: fix
            .edits
            .iter()
            .map(|e| TextEdit::new(range(e.span), e.content.clone()))
            .collect(),
    });
    // Read errors cannot be suppressed; an unused suppression is removed, not suppressed.
    let noqa = match d.code {
        "GPU999" | "GPU900" => None,
        code => crate::add_noqa::line_edit(file, d.span.file, d.span.start, code)
            .map(|e| TextEdit::new(range(e.span), e.content)),
    };
    Some(Finding {
        path: normalize(&file.path),
        text_hash: text_hash(&file.text),
        diagnostic,
        fix,
        noqa,
    })
}
