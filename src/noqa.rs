//! Suppression comments, as ruff reads them: `# noqa` or `# noqa: GPU001, GPU003` on the line where a
//! finding starts, and `# gpulint: noqa` or `# gpulint: noqa: GPU001` anywhere in a file for the whole
//! file. Codes are case-insensitive; `# noqa` without codes suppresses every code.

use std::collections::{HashMap, HashSet};

use gpulint_core::files::File;
use gpulint_core::source::Span;
use gpulint_rules::{Applicability, Diagnostic, Edit, Fix};

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
    pub fn of(file: &File) -> Directives {
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
    /// a bare file-level suppression that suppressed nothing, each with the fix that removes it
    /// from `file`. Bare `# noqa` and other tools' codes are not reported: they may be ruff's or
    /// flake8's.
    pub fn unused(&self, used: &HashSet<Use>, file: &File) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        // Read only where something is reported: a file's text may be read again from disk.
        let mut text: Option<std::sync::Arc<str>> = None;
        let mut report = |code: Option<&str>, d: &Directive, file_level: bool| {
            let text = text.get_or_insert_with(|| std::sync::Arc::from(&*file.text));
            let mut finding = gpulint_rules::unused_noqa(code, d.span, file_level);
            finding.fix = removal(text, d.span, code).map(|edits| Fix {
                applicability: Applicability::Safe,
                message: "remove the unused suppression".into(),
                edits,
            });
            out.push(finding);
        };
        let ours = |c: &&String| c.to_ascii_uppercase().starts_with("GPU");
        let mut lines: Vec<_> = self.lines.iter().collect();
        lines.sort_by_key(|(line, _)| **line);
        for (line, d) in lines {
            for code in d.codes.0.iter().filter(ours) {
                if !used.contains(&(Some(*line), code.clone())) {
                    report(Some(code), d, false);
                }
            }
        }
        if let Some(d) = &self.file {
            if d.codes.0.is_empty() {
                if !used.iter().any(|(line, _)| line.is_none()) {
                    report(None, d, true);
                }
            } else {
                for code in d.codes.0.iter().filter(ours) {
                    if !used.contains(&(None, code.clone())) {
                        report(Some(code), d, true);
                    }
                }
            }
        }
        out
    }
}

/// The edits that take `code` out of the suppression comment at `comment` (with a separator
/// beside it); or, where it is the list's only code or `None` (a bare file-level directive), the
/// whole directive with the space before it, since an emptied list would suppress everything.
/// `None` where text follows such a directive in its comment (it would be left outside any
/// comment), or the comment does not name `code` (a list merged from several comments).
fn removal(text: &str, comment: Span, code: Option<&str>) -> Option<Vec<Edit>> {
    let body = text.get(comment.start as usize..comment.end as usize)?;
    let parsed = parse_directive(body)?;
    let at = |start: usize, end: usize| {
        let base = comment.start as usize;
        Span::new(comment.file, (base + start) as u32, (base + end) as u32)
    };
    let spans = &parsed.spans;
    if let (Some(code), true) = (code, spans.len() > 1) {
        let i = parsed
            .codes
            .0
            .iter()
            .position(|c| c.eq_ignore_ascii_case(code))?;
        let (start, end) = match spans.get(i + 1) {
            Some(next) => (spans[i].0, next.0),
            None => (spans[i - 1].1, spans[i].1),
        };
        return Some(vec![Edit {
            span: at(start, end),
            content: String::new(),
        }]);
    }
    if !body[parsed.end..].trim().is_empty() {
        return None;
    }
    // The directive and the blanks before it, to the comment's end (a comment alone on its line
    // leaves the line empty).
    let line_start = text[..comment.start as usize]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let before = &text[line_start..comment.start as usize + parsed.mark];
    let start = (line_start + before.trim_end().len()) as u32;
    Some(vec![Edit {
        span: Span::new(comment.file, start, comment.end),
        content: String::new(),
    }])
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
    parse_directive(comment).map(|p| (p.file_level, p.codes))
}

/// `comment` with `codes` added to its line directive's list (`# noqa: E501` → `# noqa: E501,
/// GPU001`); `None` when it holds no line directive with codes.
pub fn with_codes(comment: &str, codes: &[&str]) -> Option<String> {
    let parsed = parse_directive(comment)?;
    if parsed.file_level || parsed.codes.0.is_empty() {
        return None;
    }
    let (before, after) = comment.split_at(parsed.end);
    Some(format!("{before}, {}{after}", codes.join(", ")))
}

/// A directive as written in its comment (offsets are the comment's).
struct Parsed {
    file_level: bool,
    codes: Codes,
    /// Where each code is.
    spans: Vec<(usize, usize)>,
    /// Where the directive starts (its `#` or `//`) and where its list of codes ends.
    mark: usize,
    end: usize,
}

fn parse_directive(comment: &str) -> Option<Parsed> {
    let lower = comment.to_ascii_lowercase();
    let (file_level, mark, rest) = if let Some(at) = lower.find("gpulint: noqa") {
        let mark = comment[..at].rfind('#').unwrap_or(at);
        (true, mark, &comment[at + "gpulint: noqa".len()..])
    } else {
        let (mark, at) = find_noqa(&lower)?;
        (false, mark, &comment[at..])
    };
    let mut parsed = Parsed {
        file_level,
        codes: Codes::default(),
        spans: Vec::new(),
        mark,
        end: comment.len(),
    };
    let Some(list) = rest.trim_start().strip_prefix(':') else {
        return Some(parsed);
    };
    let list_start = comment.len() - list.len();
    parsed.end = list_start;
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
        parsed.codes.0.push(word.to_ascii_uppercase());
        let start = list_start + word_start;
        parsed.spans.push((start, start + word.len()));
        parsed.end = start + word.len();
    }
    Some(parsed)
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

/// Where the `#` (or `//`) of `# noqa` is, and where the text after it starts (the `#` may be the
/// comment's own or a later one).
fn find_noqa(lower: &str) -> Option<(usize, usize)> {
    let mut from = 0;
    // `# noqa` in Python, `// noqa` in Rust.
    while let Some((hash, len)) = next_comment_mark(&lower[from..]) {
        let after = from + hash + len;
        let rest = &lower[after..];
        let trimmed = rest.trim_start();
        if let Some(tail) = trimmed.strip_prefix("noqa") {
            // `# noqa` and `# noqa: ...`, not `# noqa-like words`.
            if tail.is_empty() || tail.starts_with(':') || tail.starts_with(char::is_whitespace) {
                return Some((
                    from + hash,
                    after + (rest.len() - trimmed.len()) + "noqa".len(),
                ));
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

    /// `line` (one line, with a comment) after the removal of `code` from its directive.
    fn removed(line: &str, code: Option<&str>) -> Option<String> {
        let hash = line.find('#').unwrap() as u32;
        let file = gpulint_core::source::FileId(0);
        let comment = Span::new(file, hash, line.trim_end().len() as u32);
        let edits = removal(line, comment, code)?;
        Some(gpulint_rules::fix::apply(line, &edits.iter().collect::<Vec<_>>()).0)
    }

    #[test]
    fn an_unused_code_leaves_the_list_and_an_emptied_directive_goes() {
        let both = "x = f()  # noqa: GPU001, GPU003\n";
        assert_eq!(
            removed(both, Some("GPU003")).as_deref(),
            Some("x = f()  # noqa: GPU001\n")
        );
        assert_eq!(
            removed(both, Some("gpu001")).as_deref(),
            Some("x = f()  # noqa: GPU003\n")
        );
        assert_eq!(
            removed("x = f()  # NOQA:E501,GPU001\n", Some("GPU001")).as_deref(),
            Some("x = f()  # NOQA:E501\n")
        );
        assert_eq!(
            removed("x = f()  # noqa: GPU001\n", Some("GPU001")).as_deref(),
            Some("x = f()\n")
        );
        assert_eq!(
            removed("# the pool  # noqa: GPU001\n", Some("GPU001")).as_deref(),
            Some("# the pool\n")
        );
        assert_eq!(
            removed("    # gpulint: noqa\n", None).as_deref(),
            Some("\n")
        );
        // The reason after the code would be left outside the comment.
        assert_eq!(
            removed("x = f()  # noqa: GPU001 spawn\n", Some("GPU001")),
            None
        );
    }

    #[test]
    fn coverage_is_by_code_or_all() {
        assert!(codes(&[]).covers("GPU001"));
        assert!(codes(&["GPU001"]).covers("gpu001"));
        assert!(!codes(&["GPU001"]).covers("GPU003"));
    }
}
