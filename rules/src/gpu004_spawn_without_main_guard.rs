//! GPU004 spawn-without-main-guard: code that every spawned child runs again while it re-imports
//! the main module, and that fails there.

use gpulint_analyses::main_guard::{Rerun, UnguardedFact};
use gpulint_analyses::Facts;
use gpulint_core::effect::StartMethod;

use crate::{
    Applicability, Diagnostic, Fix, FixAvailability, Language, Related, Rule, Severity, Sources,
};

pub static RULE: Rule = Rule {
    code: "GPU004",
    name: "spawn-without-main-guard",
    severity: Severity::Error,
    summary: "A process is created, or the start method set, outside the `__main__` guard under spawn or forkserver: every child runs it again and fails",
    docs: DOCS,
    check: Some(check),
    replaced_by: &[],
    language: Some(Language::Python),
    fix: FixAvailability::Sometimes,
};

const DOCS: &str = r#"## What it does
Finds code that a child started by `spawn` or `forkserver` runs again while it imports the main module:
- a process creation (`Process(...).start()`, `Pool(...)`, `torch.multiprocessing.spawn(...)`, a
  `DataLoader` with workers that is iterated, an executor's `submit`) outside the
  `if __name__ == "__main__":` guard, in the main module or in a module it imports;
- `multiprocessing.set_start_method(...)` at module level without `force=True`.

The start method comes from `set_start_method`, `get_context("spawn")`, `torch.multiprocessing.spawn`,
a loader's `multiprocessing_context`, or the platform's default: spawn on macOS and Windows, and
forkserver on Linux from Python 3.14 (`--target-version py314`, or `requires-python` in
`pyproject.toml`).

## Why is this bad?
A spawned child is a new interpreter. Before it runs its target, it imports the main module again
(as `__mp_main__`), and everything outside the guard runs a second time. A process created there
would create more processes without end, so Python stops it: the child raises "An attempt has been
made to start a new process before the current process has finished its bootstrapping phase" and
exits with code 1. A fork server imports the main module the same way, and fails the same way.

Before re-importing, the child also fixes its own start method to the parent's. So a module-level
`set_start_method("spawn")` raises "context has already been set" in every child.

Python 3.14 made forkserver the default on Linux. Scripts that worked for years under fork now fail
this way, often inside a data loader.

## When it is not a bug
- The creation is under `if __name__ == "__main__":`, or in a function that only the guarded code
  calls.
- The start method is fork (the child does not re-import anything).
- `set_start_method(..., force=True)` at module level, or one inside a `try` that catches the error.
- Module-level code that creates no process (definitions, constants, imports that start nothing).

## Example
```python
import torch.multiprocessing as mp

def work(rank):
    print("worker", rank)

mp.spawn(work, nprocs=2)
```

Use instead:
```python
def main():
    mp.spawn(work, nprocs=2)

if __name__ == "__main__":
    main()
```

## Fix
Put the process creation, and whatever only the parent should run, in a function called under
`if __name__ == "__main__":`. Call `set_start_method` there too, once.

## Fix safety
`gpulint check --fix --unsafe-fixes` puts the module-level statement that runs the process creation
(or the `set_start_method`) under `if __name__ == "__main__":`: that statement and the rest of the
module go into a new guard when nothing after it defines or imports anything; or, when only
definitions and imports follow it up to a guard that ends the module, the statement moves to the
start of that guard. The fix is unsafe: the moved code no longer runs when another module imports
this one, and what it binds is missing there. There is no fix when other code follows, when a
function or class after it would move under the guard (the children need it), or when the lines to
indent hold a triple-quoted string (its text would change) or start with a tab.

## References
- Python's multiprocessing guidelines, "Safe importing of main module".
- Reports of the "bootstrapping phase" error when scripts moved to macOS or Windows, or to Python
  3.14 on Linux (pytorch/ignite#3805), and of "context has already been set" from a module-level
  `set_start_method`.
"#;

fn check(facts: &Facts, sources: &dyn Sources) -> Vec<Diagnostic> {
    facts
        .unguarded
        .iter()
        .map(|f| diagnostic(f, sources))
        .collect()
}

/// Puts the module-level statement that reached the call under the main guard. Unsafe: what it
/// and the code moved with it bind no longer exists for a module that imports this one.
fn guard_fix(fact: &UnguardedFact, sources: &dyn Sources) -> Option<Fix> {
    let statement = fact.statement.filter(|s| s.file == fact.span.file)?;
    let edits = crate::fix::guard_statement(sources.text(statement.file), statement)?;
    Some(Fix {
        applicability: Applicability::Unsafe,
        message: "put it under `if __name__ == \"__main__\":`: it then runs only when the file is run as a script, and what it binds is missing for any module that imports this one".into(),
        edits,
    })
}

fn diagnostic(fact: &UnguardedFact, sources: &dyn Sources) -> Diagnostic {
    let (message, label, related, help) = match &fact.rerun {
        Rerun::Creation {
            start_method,
            start_method_source,
            ..
        } => (
            format!(
                "This process is created outside `if __name__ == \"__main__\":` under {}: every child runs it again while importing this module, and fails",
                start_method.name()
            ),
            "run again by every child while it starts".to_string(),
            start_method_source
                .filter(|s| *s != fact.span)
                .map(|span| Related {
                    span,
                    message: format!("{} is chosen here", start_method.name()),
                })
                .into_iter()
                .collect(),
            match (start_method, start_method_source) {
                (StartMethod::Forkserver, None) => "put the process creation under `if __name__ == \"__main__\":` (forkserver is Linux's default start method from Python 3.14)",
                (_, None) => "put the process creation under `if __name__ == \"__main__\":` (spawn is the default start method on macOS and Windows)",
                _ => "put the process creation under `if __name__ == \"__main__\":`",
            }
            .to_string(),
        ),
        Rerun::StartMethod { method } => (
            format!(
                "`set_start_method(\"{}\")` runs again in every spawned child, whose start method is already fixed: it raises \"context has already been set\"",
                method.name()
            ),
            "run again by every child while it starts".to_string(),
            Vec::new(),
            "call it under `if __name__ == \"__main__\":`, or pass `force=True`".to_string(),
        ),
    };
    Diagnostic {
        code: RULE.code,
        name: RULE.name,
        severity: RULE.severity,
        message,
        span: fact.span,
        label,
        related,
        help,
        fix: guard_fix(fact, sources),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{span, Text};

    fn facts(rerun: Rerun) -> Facts {
        Facts {
            unguarded: vec![UnguardedFact {
                span: span(10, 20),
                rerun,
                statement: None,
            }],
            ..Facts::default()
        }
    }

    #[test]
    fn a_creation_names_what_chose_spawn() {
        let [d] = check(
            &facts(Rerun::Creation {
                start_method: StartMethod::Spawn,
                start_method_source: Some(span(0, 5)),
            }),
            &Text(""),
        )
        .try_into()
        .unwrap();
        assert_eq!(d.severity, Severity::Error);
        assert_eq!(d.related.len(), 1);
        assert!(d.message.contains("under spawn"), "{}", d.message);
    }

    #[test]
    fn the_platform_default_is_named_in_the_help() {
        let [d] = check(
            &facts(Rerun::Creation {
                start_method: StartMethod::Forkserver,
                start_method_source: None,
            }),
            &Text(""),
        )
        .try_into()
        .unwrap();
        assert!(d.related.is_empty());
        assert!(d.help.contains("3.14"), "{}", d.help);
    }

    #[test]
    fn set_start_method_again_says_what_it_raises() {
        let [d] = check(
            &facts(Rerun::StartMethod {
                method: StartMethod::Spawn,
            }),
            &Text(""),
        )
        .try_into()
        .unwrap();
        assert!(d.message.contains("already"), "{}", d.message);
    }
}
