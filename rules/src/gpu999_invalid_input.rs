//! GPU999: a file gpulint could not read or parse. The driver emits it; there is no check here.

use gpulint_core::source::Span;

use crate::{Diagnostic, FixAvailability, Rule, Severity};

pub static RULE: Rule = Rule {
    code: "GPU999",
    name: "invalid-syntax",
    severity: Severity::Error,
    summary: "A file could not be read (unreadable-file) or parsed (invalid-syntax), so it was not checked",
    docs: DOCS,
    check: None,
    replaced_by: &[],
    language: None,
    fix: FixAvailability::None,
};

const DOCS: &str = r#"## What it does
Reports a file that gpulint could not check: `invalid-syntax` when the parser (Python's, or syn for
Rust) rejects it (with the parser's message and position), `unreadable-file` when it is not UTF-8, contains a NUL byte, or
cannot be read at all (permissions, a broken symbolic link). The other files are still checked.

## Why is this bad?
A file that is not checked can hide any of the other findings; a lint step that skipped it silently
would report a clean run that is not one.

## Example
```python
def train(:
    pass
```

## Fix
Fix the syntax error or the encoding, or exclude the file from the paths you check.

gpulint offers no automatic fix: it cannot know what the file should have said.

## References
- Python's grammar: https://docs.python.org/3/reference/grammar.html
"#;

/// A file the parser rejected.
pub fn invalid_syntax(message: &str, span: Span) -> Diagnostic {
    Diagnostic {
        code: RULE.code,
        name: "invalid-syntax",
        severity: Severity::Error,
        message: format!("Syntax error: {message}"),
        span,
        label: message.to_string(),
        related: Vec::new(),
        help: "fix the syntax error; the file was not checked".into(),
        fix: None,
    }
}

/// A file that could not be read as UTF-8 text.
pub fn unreadable_file(reason: &str, span: Span) -> Diagnostic {
    Diagnostic {
        code: RULE.code,
        name: "unreadable-file",
        severity: Severity::Error,
        message: format!("Unreadable file: {reason}"),
        span,
        label: reason.to_string(),
        related: Vec::new(),
        help: "the file was not checked".into(),
        fix: None,
    }
}
