//! Fixes: text edits attached to a diagnostic, safe or unsafe as ruff splits them, and the functions
//! rules build them with. The driver applies them (`--fix`, `--diff`) and checks again until nothing
//! changes. Each of them returns `None` where the edit is not mechanical from the text and the
//! facts it is given: a rule then offers no fix.

mod main_guard;
mod spawn;
mod statements;

pub use main_guard::{guard_statement, under_main_guard};
pub use spawn::{spawn_at_fork_point, ForkPoint};
pub use statements::move_statement_before;

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
    // One argument a line, with a trailing comma: a line of its own, indented as the last one.
    let last_line = &before[before.rfind('\n').map_or(0, |i| i + 1)..];
    let own_line = before.ends_with(',') && text[before.len()..close as usize].contains('\n');
    let content = if before.ends_with('(') {
        argument.to_string()
    } else if own_line {
        let indent = &last_line[..last_line.len() - last_line.trim_start().len()];
        format!("\n{indent}{argument},")
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

/// Replaces the text at `span` by `content`.
pub fn replace(span: Span, content: impl Into<String>) -> Edit {
    Edit {
        span,
        content: content.into(),
    }
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

/// Applies `edits` to `text` whole, for tests.
#[cfg(test)]
pub(crate) fn applied(text: &str, edits: &[Edit]) -> String {
    apply(text, &edits.iter().collect::<Vec<_>>()).0
}

#[cfg(test)]
pub(crate) fn span_of(text: &str, needle: &str) -> Span {
    let start = text.find(needle).expect("the needle is in the text") as u32;
    Span::new(
        gpulint_core::source::FileId(0),
        start,
        start + needle.len() as u32,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_keyword_goes_after_the_last_argument() {
        for (call, fixed) in [
            ("DataLoader(ds)", "DataLoader(ds, k=1)"),
            ("DataLoader()", "DataLoader(k=1)"),
            (
                "DataLoader(\n    ds,\n)",
                "DataLoader(\n    ds,\n    k=1,\n)",
            ),
            ("DataLoader(ds,)", "DataLoader(ds, k=1)"),
        ] {
            let text = format!("x = {call}\n");
            let edit = add_keyword(&text, span_of(&text, call), "k=1").unwrap();
            assert_eq!(applied(&text, &[edit]), format!("x = {fixed}\n"));
        }
        let text = "DataLoader(ds, k=2)";
        assert!(add_keyword(text, span_of(text, text), "k=1").is_none());
    }
}
