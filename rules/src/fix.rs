//! Fixes: text edits attached to a diagnostic, safe or unsafe as ruff splits them, and the helpers
//! rules build them with. The driver applies them (`--fix`, `--diff`) and checks again until nothing
//! changes.

use gpulint_core::diagnostic::Edit;
use gpulint_core::source::Span;

/// Adds keyword argument `argument` (`name=value`) to the call at `call`, unless it already passes
/// `name`. `None` when the span is not a call ending in `)`.
pub fn add_keyword(text: &str, call: Span, argument: &str) -> Option<Edit> {
    let call_text = text.get(call.start as usize..call.end as usize)?;
    let name = argument.split('=').next()?;
    if !call_text.ends_with(')') || call_text.contains(&format!("{name}=")) {
        return None;
    }
    let close = call.end - 1;
    let before = text[..close as usize].trim_end();
    let content = if before.ends_with('(') {
        argument.to_string()
    } else if before.ends_with(',') {
        format!(" {argument}")
    } else {
        format!(", {argument}")
    };
    // Insert right after the last argument (before whitespace and the parenthesis).
    let at = before.len() as u32;
    Some(Edit {
        span: Span::new(call.file, at, at),
        content,
    })
}

/// The whole lines a statement that is exactly the expression at `expr` occupies (indentation to
/// line end, newline included), and its indentation; `None` when the line holds anything else.
fn statement_lines(text: &str, expr: Span) -> Option<(Span, &str)> {
    let start = text[..expr.start as usize].rfind('\n').map_or(0, |i| i + 1);
    let indent = &text[start..expr.start as usize];
    if !indent.chars().all(|c| c == ' ' || c == '\t') {
        return None;
    }
    let end = text[expr.end as usize..]
        .find('\n')
        .map_or(text.len(), |i| expr.end as usize + i + 1);
    let tail = text[expr.end as usize..end].trim();
    if !(tail.is_empty() || tail.starts_with('#')) {
        return None;
    }
    Some((Span::new(expr.file, start as u32, end as u32), indent))
}

/// Moves the statement that is exactly `moved` to just before the statement that is exactly
/// `before`, when both are whole lines at the same indentation, `moved` comes later, and no line
/// between mentions a name that `moved` reads (so nothing it depends on is computed in between).
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
    let moved_text = &text[moved.start as usize..moved.end as usize];
    let args = moved_text.split_once('(').map_or("", |(_, a)| a);
    let names = args
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| {
            w.chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
        });
    for name in names {
        let mentioned = between
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|w| w == name);
        if mentioned && !matches!(name, "torch" | "cuda" | "os" | "environ" | "int") {
            return None;
        }
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

/// Whether the line holding `at` sits in the body of an `if __name__ == "__main__":` block: read from
/// the text, walking up to each enclosing line of smaller indentation.
pub fn under_main_guard(text: &str, at: Span) -> bool {
    let start = (at.start as usize).min(text.len());
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let indent = |line: &str| line.len() - line.trim_start().len();
    let mut depth = indent(&text[line_start..]);
    for line in text[..line_start].lines().rev() {
        let code = line.trim_start();
        if code.is_empty() || code.starts_with('#') || indent(line) >= depth {
            continue;
        }
        depth = indent(line);
        let compact: String = code.chars().filter(|c| !c.is_whitespace()).collect();
        if compact.starts_with("if__name__==") && compact.contains("__main__") {
            return true;
        }
        if depth == 0 {
            return false;
        }
    }
    false
}

/// Applies edits to a text; overlapping edits after the first are skipped. Returns the new text and
/// how many edits were applied.
pub fn apply(text: &str, edits: &[&Edit]) -> (String, usize) {
    let mut sorted: Vec<&Edit> = edits.to_vec();
    sorted.sort_by_key(|e| (e.span.start, e.span.end));
    let mut out = String::with_capacity(text.len());
    let mut at = 0usize;
    let mut applied = 0;
    for edit in sorted {
        let (start, end) = (edit.span.start as usize, edit.span.end as usize);
        if start < at || end > text.len() {
            continue;
        }
        out.push_str(&text[at..start]);
        out.push_str(&edit.content);
        at = end;
        applied += 1;
    }
    out.push_str(&text[at..]);
    (out, applied)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpulint_core::source::FileId;

    fn span(text: &str, needle: &str) -> Span {
        let start = text.find(needle).unwrap() as u32;
        Span::new(FileId(0), start, start + needle.len() as u32)
    }

    #[test]
    fn a_keyword_goes_after_the_last_argument() {
        for (call, fixed) in [
            ("DataLoader(ds)", "DataLoader(ds, k=1)"),
            ("DataLoader()", "DataLoader(k=1)"),
            ("DataLoader(\n    ds,\n)", "DataLoader(\n    ds, k=1\n)"),
        ] {
            let text = format!("x = {call}\n");
            let edit = add_keyword(&text, span(&text, call), "k=1").unwrap();
            assert_eq!(apply(&text, &[&edit]).0, format!("x = {fixed}\n"));
        }
        let text = "DataLoader(ds, k=2)";
        assert!(add_keyword(text, span(text, text), "k=1").is_none());
    }

    #[test]
    fn a_statement_moves_only_when_nothing_between_feeds_it() {
        let text = "def f():\n    init()\n    set_device(rank)\n";
        let edits =
            move_statement_before(text, span(text, "set_device(rank)"), span(text, "init()"))
                .unwrap();
        let refs: Vec<&Edit> = edits.iter().collect();
        assert_eq!(
            apply(text, &refs).0,
            "def f():\n    set_device(rank)\n    init()\n"
        );
        let text = "init()\nrank = 3\nset_device(rank)\n";
        assert!(
            move_statement_before(text, span(text, "set_device(rank)"), span(text, "init()"))
                .is_none()
        );
        let text = "x = init()\nset_device(0)\n";
        assert!(
            move_statement_before(text, span(text, "set_device(0)"), span(text, "init()"))
                .is_none()
        );
    }

    #[test]
    fn main_guard_is_found_above_the_line_through_nested_blocks() {
        let text = "import x\n\nif __name__ == \"__main__\":\n    model = 1\n    for _ in range(2):\n        # note\n        loader = DataLoader(ds)\nafter = 2\n";
        let at = |needle: &str| {
            let start = text.find(needle).unwrap() as u32;
            Span::new(gpulint_core::source::FileId(0), start, start + 1)
        };
        assert!(under_main_guard(text, at("loader")));
        assert!(under_main_guard(text, at("model")));
        assert!(!under_main_guard(text, at("after")));
        assert!(!under_main_guard(text, at("import")));
    }
}
