//! A check's result as the editor needs it: each finding as an LSP diagnostic, with its fix and
//! its "disable for this line" edit already in positions, and the files the check read.
//!
//! Positions are those of the file as the editor holds it: a script's or a Rust file's text, and
//! for a notebook its `.ipynb` JSON, where each character of a cell is written in its `source`
//! (as the `github` format annotates it). A notebook's edits become one edit of that JSON.

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use gpulint_core::files::{normalize, File, Files};
use gpulint_core::source::{FileId, LineIndex, Span};
use gpulint_rules::{Applicability, Edit, Severity};
use lsp_types::{
    CodeDescription, Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location,
    NumberOrString, Position, Range, TextEdit, Url,
};

use super::convert::{self, Encoding};
use crate::check::Checked;
use crate::files::RunFiles;

/// What one check found, and what it read.
#[derive(Default)]
pub struct Report {
    /// Every file of the check's program (normalised): a change to one of them calls for the
    /// check again.
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
    /// Adds `# noqa: CODE` (`// noqa: CODE` in Rust) to the finding's line; `None` where a
    /// comment would not be one.
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

/// The findings of a check of the document at `given` (normalised) whose text hashes to
/// `given_hash`: its findings hold for that text whatever the check made of it (a notebook that is
/// not JSON has no text of its own).
pub fn report(checked: &Checked, encoding: Encoding, given: &Path, given_hash: u64) -> Report {
    let files = &checked.files;
    let read = files.all().map(|(_, f)| normalize(&f.path)).collect();
    let mut positions = Positions {
        files,
        encoding,
        json_lines: HashMap::new(),
    };
    let findings = checked
        .diagnostics
        .iter()
        .map(|d| {
            let mut f = finding(&mut positions, d);
            if f.path == given {
                f.text_hash = given_hash;
            }
            f
        })
        .collect();
    Report { read, findings }
}

/// Byte offsets of the program's files as LSP positions in what the editor holds.
struct Positions<'p> {
    files: &'p RunFiles,
    encoding: Encoding,
    /// Each notebook's JSON lines, built on first use.
    json_lines: HashMap<FileId, LineIndex>,
}

impl Positions<'_> {
    fn at(&mut self, id: FileId, offset: u32) -> Position {
        let file = self.files.file(id);
        match self.files.notebook(id) {
            None => convert::position(&file.text, file.lines(), offset, self.encoding),
            Some(notebook) => {
                let json = notebook.json();
                let lines = self
                    .json_lines
                    .entry(id)
                    .or_insert_with(|| LineIndex::new(json));
                let at = self.files.stored_line_col(id, offset);
                let byte = byte_of(json, lines, at.line, at.column);
                convert::position(json, lines, byte, self.encoding)
            }
        }
    }

    fn range(&mut self, span: Span) -> Range {
        Range::new(self.at(span.file, span.start), self.at(span.file, span.end))
    }

    /// `edits` (all in `id`) as edits of what the editor holds: a notebook's as one edit of its
    /// JSON, the cells' sources rewritten as `--fix` writes them; `None` where they cannot be put
    /// back in the cells.
    fn edits(&mut self, id: FileId, edits: &[&Edit]) -> Option<Vec<TextEdit>> {
        let file = self.files.file(id);
        let Some(notebook) = self.files.notebook(id) else {
            let placed = edits
                .iter()
                .map(|e| TextEdit::new(self.range(e.span), e.content.clone()))
                .collect();
            return Some(placed);
        };
        let old = notebook.json();
        let new = notebook.apply(&file.text, file.lines(), edits).ok()?.json;
        let (start, old_end, new_end) = changed_part(old, &new);
        let lines = self
            .json_lines
            .entry(id)
            .or_insert_with(|| LineIndex::new(old));
        let range = convert::range(old, lines, start as u32, old_end as u32, self.encoding);
        Some(vec![TextEdit::new(range, new[start..new_end].to_string())])
    }
}

/// The byte offset of 1-based `line` and `column` (in characters) of `text`, clamped to the line.
fn byte_of(text: &str, lines: &LineIndex, line: u32, column: u32) -> u32 {
    let Some(start) = lines.line_start(line).map(|s| s as usize) else {
        return text.len() as u32;
    };
    let rest = text.get(start..).unwrap_or_default();
    let skip = column.saturating_sub(1) as usize;
    let in_line = rest
        .char_indices()
        .take_while(|(_, c)| *c != '\n' && *c != '\r')
        .nth(skip)
        .map_or_else(|| rest.find(['\n', '\r']).unwrap_or(rest.len()), |(i, _)| i);
    (start + in_line) as u32
}

/// Where `old` and `new` differ: the start, and the end in each, on character boundaries.
fn changed_part(old: &str, new: &str) -> (usize, usize, usize) {
    let mut start = old
        .bytes()
        .zip(new.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(start) || !new.is_char_boundary(start) {
        start -= 1;
    }
    let room = old.len().min(new.len()) - start;
    let mut suffix = old
        .bytes()
        .rev()
        .zip(new.bytes().rev())
        .take(room)
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(old.len() - suffix) || !new.is_char_boundary(new.len() - suffix) {
        suffix -= 1;
    }
    (start, old.len() - suffix, new.len() - suffix)
}

fn finding(positions: &mut Positions, d: &gpulint_rules::Diagnostic) -> Finding {
    let files = positions.files;
    let file = files.file(d.span.file);
    let related = d
        .related
        .iter()
        .filter_map(|r| {
            Some(DiagnosticRelatedInformation {
                location: Location::new(
                    convert::path_uri(files.path(r.span.file))?,
                    positions.range(r.span),
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
        range: positions.range(d.span),
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
    let fix = d.fix.as_ref().and_then(|fix| {
        // A fix's edits are all in its finding's file.
        let edits: Vec<&Edit> = fix.edits.iter().collect();
        if edits.iter().any(|e| e.span.file != d.span.file) {
            return None;
        }
        Some(FixEdits {
            message: fix.message.clone(),
            safe: fix.applicability == Applicability::Safe,
            edits: positions.edits(d.span.file, &edits)?,
        })
    });
    // Read errors cannot be suppressed; an unused suppression is removed, not suppressed.
    let noqa = match d.code {
        "GPU999" | "GPU900" => None,
        code => noqa_edit(file, d.span.file, d.span.start, code)
            .and_then(|e| positions.edits(d.span.file, &[&e]))
            .and_then(|mut e| e.pop()),
    };
    Finding {
        path: normalize(&file.path),
        text_hash: text_hash(files.notebook(d.span.file).map_or(&file.text, |n| n.json())),
        diagnostic,
        fix,
        noqa,
    }
}

/// The suppression comment for the line of `offset`, in the file's language.
fn noqa_edit(file: &File, id: FileId, offset: u32, code: &str) -> Option<Edit> {
    match file.path.extension().is_some_and(|e| e == "rs") {
        true => crate::add_noqa::rust_line_edit(file, id, offset, code),
        false => crate::add_noqa::line_edit(file, id, offset, code),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_changed_part_keeps_whole_characters() {
        assert_eq!(changed_part("a = 1\n", "a = 21\n"), (4, 4, 5));
        assert_eq!(changed_part("same", "same"), (4, 4, 4));
        // 'é' and 'è' share their first byte: the change starts at the character.
        assert_eq!(changed_part("xé", "xè"), (1, 3, 3));
        // A repeated letter: prefix and suffix never cross.
        assert_eq!(changed_part("aa", "aaa"), (2, 2, 3));
    }

    #[test]
    fn a_line_and_column_in_characters_is_a_byte_offset() {
        let text = "{\n  \"é🚀x\"\r\n}";
        let lines = LineIndex::new(text);
        let x = text.find('x').unwrap() as u32;
        assert_eq!(byte_of(text, &lines, 2, 6), x);
        // Past the line's end: the end of the line; past the last line: the end of the text.
        assert_eq!(
            byte_of(text, &lines, 2, 99),
            text.find('\r').unwrap() as u32
        );
        assert_eq!(byte_of(text, &lines, 9, 1), text.len() as u32);
    }
}
