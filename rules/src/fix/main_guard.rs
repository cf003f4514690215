//! The `if __name__ == "__main__":` guard, read from the text: whether a line is under it, and
//! putting a statement of the module's top level under it.

use gpulint_core::diagnostic::Edit;
use gpulint_core::source::Span;

use super::statements::{code_indent, line_end};

/// What a new guard and the statements put under it are indented by.
const INDENT: &str = "    ";

/// Whether a line of code (its indentation stripped) opens a main guard.
fn opens_main_guard(code: &str) -> bool {
    let compact: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    compact.starts_with("if__name__==") && compact.contains("__main__")
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
        if opens_main_guard(code) {
            return true;
        }
        if depth == 0 {
            return false;
        }
    }
    false
}

/// Puts the top-level statement at `statement` under the main guard, where that is mechanical:
/// - it and every statement after it are put in a new guard at the end of the module, when none of
///   them defines or imports anything (a child that imports the module still needs those);
/// - or, where only definitions and imports follow it up to a guard that ends the module, it moves
///   to the start of that guard.
///
/// `None` otherwise: the statement shares its line with another, lines to indent again hold a
/// triple-quoted string (whose text would change) or start with a tab, or other code follows.
pub fn guard_statement(text: &str, statement: Span) -> Option<Vec<Edit>> {
    let start = statement.start as usize;
    if start > text.len() || !(start == 0 || text[..start].ends_with('\n')) {
        return None;
    }
    // The line of the statement's last character (its span may or may not hold the newline).
    let last = (statement.end as usize)
        .saturating_sub(1)
        .clamp(start, text.len());
    let end = line_end(text, last);
    let rest = &text[end..];
    let kinds: Vec<TopLevel> = rest
        .split_inclusive('\n')
        .filter(|l| code_indent(l) == Some(0))
        .map(top_level)
        .collect();
    if kinds.iter().all(|k| *k == TopLevel::Other) {
        let lines = indented(&text[start..])?;
        let newline = if text[start..].contains("\r\n") {
            "\r\n"
        } else {
            "\n"
        };
        let content = format!("if __name__ == \"__main__\":{newline}{lines}");
        return Some(vec![Edit {
            span: Span::new(statement.file, start as u32, text.len() as u32),
            content,
        }]);
    }
    let (last, before) = kinds.split_last()?;
    if *last != TopLevel::MainGuard || before.iter().any(|k| *k != TopLevel::Definition) {
        return None;
    }
    let guard = start_of_last_top_level_line(text)?;
    let guard_end = line_end(text, guard);
    if !text[guard..guard_end].trim_end().ends_with(':') {
        return None;
    }
    // The guard's body starts at its first line of code; the statement goes in just above it.
    let body = text[guard_end..]
        .split_inclusive('\n')
        .scan(guard_end, |at, line| {
            let here = *at;
            *at += line.len();
            Some((here, line))
        })
        .find_map(|(at, line)| code_indent(line).map(|n| (at, &line[..n])))?;
    let moved = reindented(&text[start..end], body.1)?;
    // Followed by blank lines, the blank lines before it go too: what follows keeps its spacing.
    let removed_from = match rest.split_inclusive('\n').next() {
        Some(next) if next.trim().is_empty() => text[..start]
            .trim_end_matches(|c: char| c.is_whitespace())
            .len()
            .checked_add(1)
            .filter(|at| *at < start)
            .unwrap_or(start),
        _ => start,
    };
    Some(vec![
        Edit {
            span: Span::new(statement.file, removed_from as u32, end as u32),
            content: String::new(),
        },
        Edit {
            span: Span::new(statement.file, body.0 as u32, body.0 as u32),
            content: moved,
        },
    ])
}

/// What a line of the module's top level starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TopLevel {
    /// A function, class, decorator or import: something a child importing the module needs.
    Definition,
    MainGuard,
    Other,
}

fn top_level(line: &str) -> TopLevel {
    let word = line
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .next()
        .unwrap_or_default();
    if line.starts_with('@') || matches!(word, "def" | "async" | "class" | "import" | "from") {
        TopLevel::Definition
    } else if opens_main_guard(line) {
        TopLevel::MainGuard
    } else {
        TopLevel::Other
    }
}

fn start_of_last_top_level_line(text: &str) -> Option<usize> {
    let mut at = 0;
    let mut last = None;
    for line in text.split_inclusive('\n') {
        if code_indent(line) == Some(0) {
            last = Some(at);
        }
        at += line.len();
    }
    last
}

/// `lines` indented by one more level; `None` where that would change them.
fn indented(lines: &str) -> Option<String> {
    reindented(lines, INDENT)
}

/// `lines` (at the top level) with `indent` before each line that holds anything; `None` where a
/// line starts with a tab or a triple-quoted string could span lines.
fn reindented(lines: &str, indent: &str) -> Option<String> {
    if lines.contains("\"\"\"") || lines.contains("'''") {
        return None;
    }
    let mut out = String::with_capacity(lines.len() + lines.len() / 8);
    for line in lines.split_inclusive('\n') {
        if line.starts_with('\t') {
            return None;
        }
        if !line.trim().is_empty() {
            out.push_str(indent);
        }
        out.push_str(line);
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fix::{applied, span_of};

    fn guarded(text: &str, statement: &str) -> Option<String> {
        guard_statement(text, span_of(text, statement)).map(|edits| applied(text, &edits))
    }

    #[test]
    fn main_guard_is_found_above_the_line_through_nested_blocks() {
        let text = "import x\n\nif __name__ == \"__main__\":\n    model = 1\n    for _ in range(2):\n        # note\n        loader = DataLoader(ds)\nafter = 2\n";
        let at = |needle: &str| span_of(text, needle);
        assert!(under_main_guard(text, at("loader")));
        assert!(under_main_guard(text, at("model")));
        assert!(!under_main_guard(text, at("after")));
        assert!(!under_main_guard(text, at("import")));
    }

    #[test]
    fn the_trailing_statements_go_under_a_new_guard() {
        let text = "import mp\n\ndef f():\n    pass\n\np = start(f)\n\n# wait\np.join()\n";
        assert_eq!(
            guarded(text, "p = start(f)").as_deref(),
            Some("import mp\n\ndef f():\n    pass\n\nif __name__ == \"__main__\":\n    p = start(f)\n\n    # wait\n    p.join()\n")
        );
    }

    #[test]
    fn a_new_guard_keeps_the_files_line_ends() {
        let text = "import mp\r\np = start()\r\np.join()\r\n";
        assert_eq!(
            guarded(text, "p = start()").as_deref(),
            Some(
                "import mp\r\nif __name__ == \"__main__\":\r\n    p = start()\r\n    p.join()\r\n"
            )
        );
    }

    #[test]
    fn a_statement_before_definitions_moves_into_the_guard_that_ends_the_module() {
        let text = "import mp\n\nmp.set(\"spawn\")\n\n\ndef f():\n    pass\n\n\nif __name__ == \"__main__\":\n    run(f)\n";
        assert_eq!(
            guarded(text, "mp.set(\"spawn\")").as_deref(),
            Some("import mp\n\n\ndef f():\n    pass\n\n\nif __name__ == \"__main__\":\n    mp.set(\"spawn\")\n    run(f)\n")
        );
    }

    #[test]
    fn no_guard_where_the_edit_is_not_mechanical() {
        for (text, statement) in [
            // A definition after it, and no guard to move into.
            ("p = start()\ndef f():\n    pass\n", "p = start()"),
            // Code after it, before the guard.
            (
                "p = start()\nx = 1\nif __name__ == \"__main__\":\n    run()\n",
                "p = start()",
            ),
            // A string whose text would change.
            ("p = start()\ndoc = \"\"\"a\nb\"\"\"\n", "p = start()"),
            // Not at the start of its line.
            ("x = 1; p = start()\n", "p = start()"),
            // A guard whose body is on its own line.
            (
                "p = start()\nif __name__ == \"__main__\": run()\n",
                "p = start()",
            ),
        ] {
            assert!(guarded(text, statement).is_none(), "{text}");
        }
    }
}
