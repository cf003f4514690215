//! Statements as lines of text: which lines a statement holds, and moving one above another in
//! the same block.

use gpulint_core::diagnostic::Edit;
use gpulint_core::source::Span;

/// Names a moved statement may read that nothing between two statements rebinds in practice.
const STABLE_NAMES: &[&str] = &["torch", "cuda", "os", "environ", "int"];

/// The whole lines a statement that is exactly the expression at `expr` occupies (indentation to
/// line end, newline included), and its indentation; `None` when the line holds anything else.
pub(super) fn statement_lines(text: &str, expr: Span) -> Option<(Span, &str)> {
    let start = text[..expr.start as usize].rfind('\n').map_or(0, |i| i + 1);
    let indent = &text[start..expr.start as usize];
    if !indent.chars().all(|c| c == ' ' || c == '\t') {
        return None;
    }
    let end = line_end(text, expr.end as usize);
    let tail = text[expr.end as usize..end].trim();
    if !(tail.is_empty() || tail.starts_with('#')) {
        return None;
    }
    Some((Span::new(expr.file, start as u32, end as u32), indent))
}

/// The offset just past the newline that ends the line holding `at` (the text's end on its last
/// line).
pub(super) fn line_end(text: &str, at: usize) -> usize {
    text[at..].find('\n').map_or(text.len(), |i| at + i + 1)
}

/// How far a line is indented, or `None` for a line with no code (blank, or a comment alone).
pub(super) fn code_indent(line: &str) -> Option<usize> {
    let code = line.trim_start();
    (!code.is_empty() && !code.starts_with('#')).then(|| line.len() - code.len())
}

/// Moves the statement that is exactly `moved` to just before the statement that is exactly
/// `before`, when both are whole lines at the same indentation in one block (no line between is
/// indented less), `moved` comes later, and no line between mentions a name that `moved` reads (so
/// nothing it depends on is computed in between).
pub fn move_statement_before(text: &str, moved: Span, before: Span) -> Option<Vec<Edit>> {
    if moved.file != before.file || moved.start <= before.end {
        return None;
    }
    let (moved_lines, moved_indent) = statement_lines(text, moved)?;
    let (before_lines, before_indent) = statement_lines(text, before)?;
    if moved_indent != before_indent {
        return None;
    }
    let between = &text[before_lines.end as usize..moved_lines.start as usize];
    if between
        .lines()
        .filter_map(code_indent)
        .any(|indent| indent < moved_indent.len())
    {
        return None;
    }
    let moved_text = &text[moved.start as usize..moved.end as usize];
    let args = moved_text.split_once('(').map_or("", |(_, a)| a);
    let words = |s: &str| {
        s.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| {
                w.chars()
                    .next()
                    .is_some_and(|c| c.is_alphabetic() || c == '_')
            })
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let mentioned = words(between);
    if words(args)
        .iter()
        .any(|name| mentioned.contains(name) && !STABLE_NAMES.contains(&name.as_str()))
    {
        return None;
    }
    let mut line = text[moved_lines.start as usize..moved_lines.end as usize].to_string();
    if !line.ends_with('\n') {
        line.push('\n');
    }
    Some(vec![
        Edit {
            span: Span::new(before.file, before_lines.start, before_lines.start),
            content: line,
        },
        Edit {
            span: moved_lines,
            content: String::new(),
        },
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fix::{applied, span_of};

    fn moved(text: &str, statement: &str, above: &str) -> Option<String> {
        move_statement_before(text, span_of(text, statement), span_of(text, above))
            .map(|edits| applied(text, &edits))
    }

    #[test]
    fn a_statement_moves_only_when_nothing_between_feeds_it() {
        let text = "def f():\n    init()\n    set_device(rank)\n";
        assert_eq!(
            moved(text, "set_device(rank)", "init()").as_deref(),
            Some("def f():\n    set_device(rank)\n    init()\n")
        );
        let text = "init()\nrank = 3\nset_device(rank)\n";
        assert!(moved(text, "set_device(rank)", "init()").is_none());
        let text = "x = init()\nset_device(0)\n";
        assert!(moved(text, "set_device(0)", "init()").is_none());
    }

    #[test]
    fn a_statement_of_another_block_at_the_same_depth_stays() {
        let text = "if a:\n    init()\nif b:\n    set_device(0)\n";
        assert!(moved(text, "set_device(0)", "init()").is_none());
        let text = "def f():\n    init()\n    # note\n\n    barrier()\n    set_device(0)\n";
        assert_eq!(
            moved(text, "set_device(0)", "init()").as_deref(),
            Some("def f():\n    set_device(0)\n    init()\n    # note\n\n    barrier()\n")
        );
    }
}
