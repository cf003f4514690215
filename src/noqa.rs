//! Suppression comments, as ruff reads them: `# noqa` or `# noqa: GPU001, GPU003` on the line where a
//! finding starts, and `# gpulint: noqa` or `# gpulint: noqa: GPU001` anywhere in a file for the whole
//! file. Codes are case-insensitive; `# noqa` without codes suppresses every code.

use std::collections::{HashMap, HashSet};

use gpulint_python::program::SourceFile;
use gpulint_python::source::Span;
use gpulint_rules::Diagnostic;

/// The codes a directive names; empty for all.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Codes(Vec<String>);

impl Codes {
    fn covers(&self, code: &str) -> bool {
        self.0.is_empty() || self.0.iter().any(|c| c.eq_ignore_ascii_case(code))
    }
}

/// One suppression comment: its codes and where it is.
#[derive(Debug)]
struct Directive {
    codes: Codes,
    span: Span,
}

/// Which directive suppressed a finding: a line's, or the file's (`None`).
pub type Use = (Option<u32>, String);

/// The suppression comments of one file.
#[derive(Debug, Default)]
pub struct Directives {
    /// By 1-based line.
    lines: HashMap<u32, Directive>,
    file: Option<Directive>,
}

impl Directives {
    pub fn of(file: &SourceFile) -> Directives {
        let mut out = Directives::default();
        for span in &file.comments {
            let Some(comment) = file.text.get(span.start as usize..span.end as usize) else {
                continue;
            };
            match parse_comment(comment) {
                Some((true, codes)) => out.file = Some(merge(out.file.take(), codes, *span)),
                Some((false, codes)) => {
                    let line = file.lines().line_col(&file.text, span.start).line;
                    let old = out.lines.remove(&line);
                    out.lines.insert(line, merge(old, codes, *span));
                }
                None => {}
            }
        }
        out
    }

    /// The directive that suppresses a finding with `code` starting on `line`, if one does.
    pub fn suppressing(&self, line: u32, code: &str) -> Option<Use> {
        if self.lines.get(&line).is_some_and(|d| d.codes.covers(code)) {
            return Some((Some(line), code.to_ascii_uppercase()));
        }
        self.file
            .as_ref()
            .filter(|d| d.codes.covers(code))
            .map(|_| (None, code.to_ascii_uppercase()))
    }

    /// GPU900 for each gpulint code these comments name that suppressed nothing (`used`), and for
    /// a bare file-level suppression that suppressed nothing. Bare `# noqa` and other tools' codes
    /// are not reported: they may be ruff's or flake8's.
    pub fn unused(&self, used: &HashSet<Use>) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        let ours = |c: &&String| c.to_ascii_uppercase().starts_with("GPU");
        let mut lines: Vec<_> = self.lines.iter().collect();
        lines.sort_by_key(|(line, _)| **line);
        for (line, d) in lines {
            for code in d.codes.0.iter().filter(ours) {
                if !used.contains(&(Some(*line), code.clone())) {
                    out.push(gpulint_rules::unused_noqa(Some(code), d.span, false));
                }
            }
        }
        if let Some(d) = &self.file {
            if d.codes.0.is_empty() {
                if !used.iter().any(|(line, _)| line.is_none()) {
                    out.push(gpulint_rules::unused_noqa(None, d.span, true));
                }
            } else {
                for code in d.codes.0.iter().filter(ours) {
                    if !used.contains(&(None, code.clone())) {
                        out.push(gpulint_rules::unused_noqa(Some(code), d.span, true));
                    }
                }
            }
        }
        out
    }
}

fn merge(old: Option<Directive>, codes: Codes, span: Span) -> Directive {
    match old {
        Some(old) if old.codes.0.is_empty() || codes.0.is_empty() => Directive {
            codes: Codes::default(),
            span: old.span,
        },
        Some(mut old) => {
            old.codes.0.extend(codes.0);
            old
        }
        None => Directive { codes, span },
    }
}

/// `(file-level?, codes)` for a comment holding a directive.
fn parse_comment(comment: &str) -> Option<(bool, Codes)> {
    parse_directive(comment).map(|(file_level, codes, _)| (file_level, codes))
}

/// `comment` with `codes` added to its line directive's list (`# noqa: E501` → `# noqa: E501,
/// GPU001`); `None` when it holds no line directive with codes.
pub fn with_codes(comment: &str, codes: &[&str]) -> Option<String> {
    match parse_directive(comment)? {
        (false, listed, end) if !listed.0.is_empty() => {
            let (before, after) = comment.split_at(end);
            Some(format!("{before}, {}{after}", codes.join(", ")))
        }
        _ => None,
    }
}

/// Like [`parse_comment`], also giving where the list of codes ends in `comment`.
fn parse_directive(comment: &str) -> Option<(bool, Codes, usize)> {
    let lower = comment.to_ascii_lowercase();
    let (file_level, rest) = if let Some(at) = lower.find("gpulint: noqa") {
        (true, &comment[at + "gpulint: noqa".len()..])
    } else {
        let at = find_noqa(&lower)?;
        (false, &comment[at..])
    };
    let Some(list) = rest.trim_start().strip_prefix(':') else {
        return Some((file_level, Codes::default(), comment.len()));
    };
    let list_start = comment.len() - list.len();
    let mut codes = Vec::new();
    let mut end = list_start;
    let mut at = 0;
    for word in list.split(|c: char| c == ',' || c.is_whitespace()) {
        let word_start = at;
        at += word.len() + 1;
        if word.is_empty() {
            continue;
        }
        let letters = word.chars().take_while(|c| c.is_ascii_alphabetic()).count();
        let is_code = letters > 0
            && word.len() > letters
            && word[letters..].chars().all(|c| c.is_ascii_digit());
        if !is_code {
            break;
        }
        codes.push(word.to_ascii_uppercase());
        end = list_start + word_start + word.len();
    }
    Some((file_level, Codes(codes), end))
}

/// The next `#` or `//` in a comment: where it is and how long.
fn next_comment_mark(text: &str) -> Option<(usize, usize)> {
    let hash = text.find('#').map(|at| (at, 1));
    let slashes = text.find("//").map(|at| (at, 2));
    match (hash, slashes) {
        (Some(h), Some(s)) => Some(if h.0 < s.0 { h } else { s }),
        (h, s) => h.or(s),
    }
}

/// Where the text after `# noqa` starts (the `#` may be the comment's own or a later one).
fn find_noqa(lower: &str) -> Option<usize> {
    let mut from = 0;
    // `# noqa` in Python, `// noqa` in Rust.
    while let Some((hash, len)) = next_comment_mark(&lower[from..]) {
        let after = from + hash + len;
        let rest = &lower[after..];
        let trimmed = rest.trim_start();
        if let Some(tail) = trimmed.strip_prefix("noqa") {
            // `# noqa` and `# noqa: ...`, not `# noqa-like words`.
            if tail.is_empty() || tail.starts_with(':') || tail.starts_with(char::is_whitespace) {
                return Some(after + (rest.len() - trimmed.len()) + "noqa".len());
            }
        }
        from = after;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(list: &[&str]) -> Codes {
        Codes(list.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn line_directives_parse_like_ruffs() {
        assert_eq!(parse_comment("# noqa"), Some((false, codes(&[]))));
        assert_eq!(
            parse_comment("# noqa: GPU001, gpu003"),
            Some((false, codes(&["GPU001", "GPU003"])))
        );
        assert_eq!(
            parse_comment("# NOQA:GPU002 GPU001 because of x"),
            Some((false, codes(&["GPU002", "GPU001"])))
        );
        assert_eq!(
            parse_comment("# the pool  # noqa: GPU001"),
            Some((false, codes(&["GPU001"])))
        );
        assert_eq!(parse_comment("# noqalike"), None);
        assert_eq!(parse_comment("# a normal comment"), None);
    }

    #[test]
    fn file_directives_are_marked() {
        assert_eq!(parse_comment("# gpulint: noqa"), Some((true, codes(&[]))));
        assert_eq!(
            parse_comment("# gpulint: noqa: GPU003"),
            Some((true, codes(&["GPU003"])))
        );
    }

    #[test]
    fn codes_join_an_existing_list() {
        assert_eq!(
            with_codes("# noqa: E501 because x", &["GPU001"]).as_deref(),
            Some("# noqa: E501, GPU001 because x")
        );
        assert_eq!(
            with_codes("# ok  # NOQA:GPU002,GPU003", &["GPU001", "GPU015"]).as_deref(),
            Some("# ok  # NOQA:GPU002,GPU003, GPU001, GPU015")
        );
        assert_eq!(with_codes("# noqa", &["GPU001"]), None);
        assert_eq!(with_codes("# gpulint: noqa: GPU003", &["GPU001"]), None);
        assert_eq!(with_codes("# a note", &["GPU001"]), None);
    }

    #[test]
    fn coverage_is_by_code_or_all() {
        assert!(codes(&[]).covers("GPU001"));
        assert!(codes(&["GPU001"]).covers("gpu001"));
        assert!(!codes(&["GPU001"]).covers("GPU003"));
    }
}
