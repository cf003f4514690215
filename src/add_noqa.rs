//! `--add-noqa`: a `# noqa: CODE` comment on each line where a reported finding starts, merged
//! into the line's own noqa comment when it has one. Only checked files are edited.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use gpulint_core::files::{File, Files};
use gpulint_core::fsio::Stamp;
use gpulint_core::source::{FileId, Span};
use gpulint_python::notebook::Notebook;
use gpulint_rules::Edit;

use crate::check::Checked;

/// What `--add-noqa` did.
pub struct Added {
    /// Lines that got a directive, or more codes in theirs.
    pub lines: usize,
    /// `path:line` of lines left alone: a new comment there would not be a comment (the line
    /// ends inside a string, or continues with a backslash).
    pub skipped: Vec<String>,
}

/// Adds the directives to the checked files; `walked` are the folders searched (a link found in
/// one is not written through to a file outside it).
pub fn add(checked: &Checked, walked: &[PathBuf]) -> anyhow::Result<Added> {
    let files = &checked.files;
    let mut by_file: BTreeMap<FileId, BTreeMap<u32, BTreeSet<&str>>> = BTreeMap::new();
    for d in &checked.diagnostics {
        // Read errors cannot be suppressed; an unused-noqa finding is fixed by removing, not adding.
        let file = files.file(d.span.file);
        if d.code == "GPU999" || d.code == "GPU900" || !file.checked {
            continue;
        }
        by_file
            .entry(d.span.file)
            .or_default()
            .entry(line_start(&file.text, d.span.start))
            .or_default()
            .insert(d.code);
    }
    let mut added = Added {
        lines: 0,
        skipped: Vec::new(),
    };
    let mut failed = Vec::new();
    for (id, lines) in by_file {
        let file = files.file(id);
        let (edits, skipped) = directive_edits(file, id, &lines);
        let shown = crate::paths::relative(&file.path);
        added
            .skipped
            .extend(skipped.into_iter().map(|line| format!("{shown}:{line}")));
        if edits.is_empty() {
            continue;
        }
        // One file that cannot be written does not stop the others.
        if let Some(target) = crate::fixes::link_out_of(&file.path, walked) {
            failed.push(format!(
                "cannot write {shown}: a symbolic link to {}, outside the folder checked: not written through",
                target.display()
            ));
            continue;
        }
        match write(file, files.notebook(id), files.stamp(id), &edits) {
            Ok(()) => added.lines += edits.len(),
            Err(e) => failed.push(format!("cannot write {shown}: {e}; the file is as it was")),
        }
    }
    if !failed.is_empty() {
        anyhow::bail!("{}", failed.join("; "));
    }
    Ok(added)
}

/// Where the line holding `offset` starts: directives are keyed by it (a lone `\r` ends a line
/// too).
fn line_start(text: &str, offset: u32) -> u32 {
    let at = (offset as usize).min(text.len());
    // A span never starts inside a character; if one did, look from the character's start.
    let at = (0..=at)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    text[..at].rfind(['\n', '\r']).map_or(0, |i| i + 1) as u32
}

/// The edit that puts `# noqa: CODE` on the line where `offset` is (the language server's "disable
/// for this line"), merged into the line's noqa comment when it has one; `None` where a comment
/// there would not be one.
pub fn line_edit(file: &File, id: FileId, offset: u32, code: &str) -> Option<Edit> {
    let lines = BTreeMap::from([(line_start(&file.text, offset), BTreeSet::from([code]))]);
    let (mut edits, _) = directive_edits(file, id, &lines);
    edits.pop()
}

/// [`line_edit`] for a Rust file: `// noqa: CODE` at the line's end (after its comment, if it has
/// one), or the code added to the line's noqa comment; `None` where the line ends inside a string
/// or a block comment.
pub fn rust_line_edit(file: &File, id: FileId, offset: u32, code: &str) -> Option<Edit> {
    let text: &str = &file.text;
    let start = line_start(text, offset) as usize;
    let end = text[start..]
        .find(['\n', '\r'])
        .map_or(text.len(), |i| start + i);
    let comments = gpulint_rust::load::comments(text);
    let on_line = comments
        .iter()
        .find(|(s, _)| (start..end).contains(&(*s as usize)));
    if let Some(&(s, e)) = on_line {
        if let Some(content) = crate::noqa::with_codes(&text[s as usize..e as usize], &[code]) {
            return Some(Edit {
                span: Span::new(id, s, e),
                content,
            });
        }
    }
    let kept = start + text[start..end].trim_end_matches([' ', '\t']).len();
    let content = format!("  // noqa: {code}");
    let new = format!("{}{content}{}", &text[..kept], &text[end..]);
    let slash = (kept + 2) as u32;
    gpulint_rust::load::comments(&new)
        .iter()
        .any(|(s, e)| *s <= slash && slash < *e)
        .then(|| Edit {
            span: Span::new(id, kept as u32, end as u32),
            content,
        })
}

/// Writes the file with `edits` applied: into its cells' sources for a notebook (the rest of its
/// JSON as it was), whole or not at all, and only if it still holds what was read.
fn write(
    file: &File,
    notebook: Option<&Notebook>,
    stamp: Option<Stamp>,
    edits: &[Edit],
) -> Result<(), String> {
    let edits: Vec<&Edit> = edits.iter().collect();
    let (old, new) = match notebook {
        Some(notebook) => {
            let fixed = notebook.apply(&file.text, file.lines(), &edits)?;
            (notebook.json().to_string(), fixed.json)
        }
        None => {
            let old = file.text.to_string();
            let (new, _) = gpulint_rules::fix::apply(&old, &edits);
            (old, new)
        }
    };
    let expected = gpulint_core::fsio::Expected {
        bytes: old.as_bytes(),
        stamp,
    };
    gpulint_core::fsio::replace(&file.path, &expected, new.as_bytes()).map_err(|e| e.to_string())
}

/// The edits that add the directives (`lines`: by where each line starts), and the lines skipped.
fn directive_edits(
    file: &File,
    id: FileId,
    lines: &BTreeMap<u32, BTreeSet<&str>>,
) -> (Vec<Edit>, Vec<u32>) {
    let text = &file.text;
    let mut merged = Vec::new();
    let mut appended = Vec::new();
    for (&line_start, codes) in lines {
        let codes: Vec<&str> = codes.iter().copied().collect();
        let start = line_start as usize;
        let line = file.lines().line_col(text, line_start).line;
        let end = text[start..]
            .find(['\n', '\r'])
            .map_or(text.len(), |i| start + i);
        let comment = file
            .comments
            .iter()
            .find(|c| (start..end).contains(&(c.start as usize)));
        let edit = match comment.and_then(|c| {
            crate::noqa::with_codes(&text[c.start as usize..c.end as usize], &codes).map(|t| (c, t))
        }) {
            Some((c, content)) => {
                merged.push(Edit { span: *c, content });
                continue;
            }
            None => {
                let kept = text[start..end].trim_end_matches([' ', '\t']).len();
                Edit {
                    span: Span::new(id, (start + kept) as u32, end as u32),
                    content: format!("  # noqa: {}", codes.join(", ")),
                }
            }
        };
        appended.push((line, edit));
    }
    let (kept, skipped) = real_comments(text, appended);
    merged.extend(kept);
    (merged, skipped)
}

/// The appended comments that Python reads as comments, and the lines of those it would not
/// (inside a string, after a backslash continuation).
fn real_comments(text: &str, appended: Vec<(u32, Edit)>) -> (Vec<Edit>, Vec<u32>) {
    let all: Vec<&Edit> = appended.iter().map(|(_, e)| e).collect();
    if comments_land(text, &all) {
        return (appended.into_iter().map(|(_, e)| e).collect(), Vec::new());
    }
    // Rare: find the culprits one by one.
    let mut kept = Vec::new();
    let mut skipped = Vec::new();
    for (line, edit) in appended {
        if comments_land(text, &[&edit]) {
            kept.push(edit);
        } else {
            skipped.push(line);
        }
    }
    (kept, skipped)
}

/// Whether `text` with `edits` parses, with each edit's `#` in a comment: its own, or the line's
/// comment it extends (`# note  # noqa: GPU001` reads as a directive).
fn comments_land(text: &str, edits: &[&Edit]) -> bool {
    let (new, _) = gpulint_rules::fix::apply(text, edits);
    let Ok(parsed) = gpulint_python::lower::parse(&new, FileId(0)) else {
        return false;
    };
    let in_comment = |at: u32| parsed.comments.iter().any(|c| c.start <= at && at < c.end);
    // Where each `#` ends up: shifted by what the edits before it added.
    let mut sorted: Vec<&&Edit> = edits.iter().collect();
    sorted.sort_by_key(|e| e.span.start);
    let mut shift: i64 = 0;
    sorted.iter().all(|e| {
        let hash = e.span.start as i64 + shift + e.content.find('#').unwrap_or(0) as i64;
        shift += e.content.len() as i64 - i64::from(e.span.end - e.span.start);
        in_comment(hash as u32)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpulint_core::files::{FileTable, Files};

    fn rust_edit(text: &str, line: usize) -> Option<String> {
        let mut files = FileTable::default();
        let path = std::path::PathBuf::from("main.rs");
        let comments = gpulint_rust::load::comments(text)
            .iter()
            .map(|(start, end)| Span::new(FileId(0), *start, *end))
            .collect();
        let file = File::new(path, text.to_string().into(), true).with_comments(comments);
        let id = files.add(file);
        let offset: usize = text
            .split_inclusive('\n')
            .take(line - 1)
            .map(str::len)
            .sum();
        let edit = rust_line_edit(files.file(id), id, offset as u32, "GPU101")?;
        let (new, _) = gpulint_rules::fix::apply(text, &[&edit]);
        Some(new)
    }

    #[test]
    fn a_rust_line_gets_a_line_comment_unless_it_ends_inside_a_string() {
        let text = "fn main() {\n    fork();   \n    let s = \"a\n    b\";\n    run(); // noqa: GPU103\n    go(); // why\n}\n";
        assert_eq!(
            rust_edit(text, 2).as_deref(),
            Some(
                text.replace("fork();   ", "fork();  // noqa: GPU101")
                    .as_str()
            )
        );
        assert_eq!(rust_edit(text, 3), None, "the line ends inside a string");
        assert_eq!(
            rust_edit(text, 5).as_deref(),
            Some(
                text.replace("// noqa: GPU103", "// noqa: GPU103, GPU101")
                    .as_str()
            )
        );
        assert_eq!(
            rust_edit(text, 6).as_deref(),
            Some(text.replace("// why", "// why  // noqa: GPU101").as_str())
        );
    }
}
