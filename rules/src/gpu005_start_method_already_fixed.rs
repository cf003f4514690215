//! GPU005 start-method-already-fixed: `set_start_method` after the default context's start method
//! was fixed.

use gpulint_analyses::start_method::AlreadyFixedFact;
use gpulint_analyses::Facts;

use crate::{Diagnostic, FixAvailability, Language, Related, Rule, Severity, Sources};

pub static RULE: Rule = Rule {
    code: "GPU005",
    name: "start-method-already-fixed",
    severity: Severity::Error,
    summary: "`set_start_method` runs after the start method was fixed: it raises \"context has already been set\", or `force=True` leaves older queues and locks on the old method",
    docs: DOCS,
    check: Some(check),
    replaced_by: &[],
    language: Some(Language::Python),
    fix: FixAvailability::None,
};

const DOCS: &str = r#"## What it does
Finds `multiprocessing.set_start_method(...)` (or `torch.multiprocessing`'s) called after the default
context's start method was already fixed in that process:
- by an earlier `set_start_method` call, including the same call on the previous pass of a loop
  (or comprehension) that runs it, directly or through the function it calls (a constructor that
  sets the method, run once per experiment);
- by `multiprocessing.get_start_method()` without `allow_none=True`;
- by a lock, queue, event, manager or shared value made with the default context (`Lock()`,
  `Queue()`, `Manager()`...);
- in a spawned child, by the child's own start (the child fixes its start method to the parent's
  before running any code).

## Why is this bad?
Once fixed, the default context cannot change: `set_start_method` raises `RuntimeError: context has
already been set`. The script usually moved the call into a helper, or a library it imports asked
for the start method first, so the crash shows up far from its cause.

With `force=True` it does not raise, but the objects made before it stay tied to the old method. A
queue or lock made under fork and then handed to spawned children may fail to pickle, or stop being
shared. Severity: error without `force`, warning with it.

## When it is not a bug
- The first call in the process, before anything used the default context.
- A call in a function run from outside the program (a console script, a test runner, a library's
  user): that process imported the module, so its `if __name__ == "__main__":` block, and what it
  set, never ran there.
- `get_start_method(allow_none=True)`, which fixes nothing.
- `set_start_method(..., force=True)` when nothing made with the old method exists (only a query or
  an earlier call fixed it).
- `set_start_method(m, force=True)` where `m` is already in force (set earlier, inherited by a
  spawned child, or the platform's default): nothing changes.
- A lock, queue or event made with the old method that no child can receive: no child process starts
  after the forced call (objects of the old method matter only once they reach a child).
- A call inside a `try` whose handler catches the `RuntimeError`.
- An explicit context (`multiprocessing.get_context("spawn")`) instead of the default one.
- A module-level call that spawned children run again while they import the main module is
  GPU004's.

## Example
```python
import torch.multiprocessing as mp

results = mp.Queue()

def main():
    mp.set_start_method("spawn")
    ...
```

Use instead:
```python
def main():
    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    ...
```

## Fix
Set the start method once, first thing under `if __name__ == "__main__":`, before any queue, lock or
`get_start_method()`. Or do not touch the default context at all: take
`multiprocessing.get_context("spawn")` and make processes and queues from it.

gpulint offers no automatic fix: moving `set_start_method` moves it past the code in between, which may itself fix the method or start children.

## References
- Python's multiprocessing documentation: "`set_start_method()` should not be used more than once
  in the program".
- Reports of "context has already been set" from training scripts and libraries that both set the
  start method.
"#;

fn check(facts: &Facts, _: &dyn Sources) -> Vec<Diagnostic> {
    facts
        .start_method_fixed
        .iter()
        .filter(|f| f.hazard())
        .map(diagnostic)
        .collect()
}

fn diagnostic(fact: &AlreadyFixedFact) -> Diagnostic {
    let method = fact.method.name();
    let (severity, message, label) = if fact.forced {
        (
            Severity::Warning,
            format!(
                "`set_start_method(\"{method}\", force=True)` replaces a start method already in use: what was made with the old one stays with it"
            ),
            "forced over a fixed start method",
        )
    } else {
        (
            Severity::Error,
            format!(
                "`set_start_method(\"{method}\")` runs after the start method was fixed: it raises \"context has already been set\""
            ),
            "raises RuntimeError here",
        )
    };
    Diagnostic {
        code: RULE.code,
        name: RULE.name,
        severity,
        message,
        span: fact.span,
        label: label.into(),
        related: vec![Related {
            span: fact.fixed.span,
            message: format!("fixed here: {}", fact.fixed.what),
        }],
        help: "set the start method once, first, under `if __name__ == \"__main__\":`; or use `multiprocessing.get_context(...)` and make processes and queues from that context".into(),
        fix: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{span, Text};
    use gpulint_analyses::start_method::Fixed;
    use gpulint_core::effect::StartMethod;

    fn facts(forced: bool, creates_objects: bool) -> Facts {
        Facts {
            start_method_fixed: vec![AlreadyFixedFact {
                span: span(20, 30),
                method: StartMethod::Spawn,
                fixed: Fixed {
                    span: span(0, 5),
                    what: "queue".into(),
                    creates_objects,
                },
                forced,
            }],
            ..Facts::default()
        }
    }

    #[test]
    fn unforced_is_an_error_forced_over_objects_a_warning() {
        let [d] = check(&facts(false, false), &Text("")).try_into().unwrap();
        assert_eq!(d.severity, Severity::Error);
        assert_eq!(d.related[0].span, span(0, 5));
        let [d] = check(&facts(true, true), &Text("")).try_into().unwrap();
        assert_eq!(d.severity, Severity::Warning);
        assert!(check(&facts(true, false), &Text("")).is_empty());
    }
}
