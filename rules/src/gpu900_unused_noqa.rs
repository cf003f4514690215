//! GPU900: a suppression comment that suppresses nothing. The driver emits it (with
//! `--report-unused-noqa`); there is no check here.

use gpulint_core::source::Span;

use crate::{Diagnostic, FixAvailability, Rule, Severity};

pub static RULE: Rule = Rule {
    code: "GPU900",
    name: "unused-noqa",
    severity: Severity::Warning,
    summary: "A `# noqa: GPU...` or `# gpulint: noqa` comment that suppresses no finding",
    docs: DOCS,
    check: None,
    replaced_by: &[],
    language: None,
    fix: FixAvailability::Sometimes,
};

const DOCS: &str = r#"## What it does
With `--report-unused-noqa`, reports gpulint codes in suppression comments that silence nothing: a
`# noqa: GPU001` on a line where no GPU001 finding starts, or a file-level `# gpulint: noqa` in a file
without the findings it names. A bare `# noqa` and other tools' codes (`# noqa: E501`) are left alone:
they may belong to ruff or flake8.

## Why is this bad?
A suppression that outlived its finding hides the next real one on that line (or in that file), and
tells readers a hazard is there when it is not.

## Example
```python
with mp.get_context("spawn").Pool(4) as pool:  # noqa: GPU001  (spawn: nothing to suppress)
    pool.map(score, batches)
```

## Fix
Delete the code from the comment (or the comment).

## Fix safety
`gpulint check --report-unused-noqa --fix` takes the code out of the comment's list, or removes the
directive where it was the list's only code (an emptied list would suppress every code). The fix is
safe: the comment suppressed nothing. There is no fix where a reason follows the code in the same
comment (`# noqa: GPU001 spawned`): removing the directive would leave the reason outside it.

## References
- ruff's equivalent, RUF100: https://docs.astral.sh/ruff/rules/unused-noqa/
"#;

/// A suppression of `code` (every code, for `None`: a bare `# gpulint: noqa`) that matched nothing.
pub fn unused_noqa(code: Option<&str>, span: Span, file_level: bool) -> Diagnostic {
    let message = match (code, file_level) {
        (Some(code), true) => {
            format!("Unused file-level suppression of {code}: no {code} finding in this file")
        }
        (Some(code), false) => {
            format!("Unused `noqa` for {code}: no {code} finding starts on this line")
        }
        (None, _) => "Unused file-level suppression: no finding in this file".to_string(),
    };
    let code = code.unwrap_or("every rule");
    Diagnostic {
        code: RULE.code,
        name: RULE.name,
        severity: RULE.severity,
        message,
        span,
        label: format!("{code} is suppressed here, but nothing is"),
        related: Vec::new(),
        help: format!("remove {code} from the comment"),
        fix: None,
    }
}
