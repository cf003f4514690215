//! GPU013 spawn-reads-parent-mutated-global: a child started by spawn or forkserver reads a module
//! global that the parent set at run time; the child sees the value the import gives.

use gpulint_analyses::stale_globals::StaleGlobalFact;
use gpulint_analyses::Facts;

use crate::{Diagnostic, FixAvailability, Language, Related, Rule, Severity, Sources};

pub static RULE: Rule = Rule {
    code: "GPU013",
    name: "spawn-reads-parent-mutated-global",
    severity: Severity::Warning,
    summary: "A child started by spawn or forkserver reads a module global the parent set at run time: it sees the import-time value",
    docs: DOCS,
    check: Some(check),
    replaced_by: &[],
    language: Some(Language::Python),
    fix: FixAvailability::None,
};

const DOCS: &str = r#"## What it does
Finds a module global that the parent process sets at run time and that code running in a child
started by `spawn` or `forkserver` reads:
- set at run time: by a function through `global NAME` (also the function that then starts the
  pool), or by the script's `if __name__ == "__main__":` block; a class attribute rebound there
  (`Limits.max_tokens = 512`); or changed in place (`CONFIG["fp16"] = True`,
  `PATHS.extend(...)`, `OPTS.setdefault(...)`, `OPTIONS.verbose = True`, `setattr(OPTIONS, k, v)`),
  also through another name for the same object (a helper's parameter, the object a lazy
  `get_instance()` returns);
- a library's process-wide setting set at run time that a fresh interpreter starts without:
  `torch.set_default_dtype` (or `set_default_tensor_type`), read by the calls that make
  floating-point tensors or layers without a `dtype=`;
- read in the child: by the process target, a pool's function, a `DataLoader` worker's dataset
  methods or `worker_init_fn`, or what they call; a changed field is reported where the child
  reads that field of its own object.

## Why is this bad?
A spawned child is a new interpreter. It imports the script and its modules afresh, so every
global holds what the import gives it: the default, not the value the parent set while running.
Nothing fails: the worker quietly runs with the default (8-bit loading off, the wrong checkpoint, a
debug flag lost), or raises `NameError` when only the guarded block defined the name. Under fork
the child copies the parent's memory, so the same code works, and breaks on macOS, Windows, or
Linux with Python 3.14 (forkserver by default).

## When it is not a bug
- The child is forked: it inherits the parent's value.
- The global is assigned at module level (the child's import assigns it the same way), or a class
  attribute is assigned again at run time the expression its class body gives it (a `refresh()`
  that re-reads the environment, which the child inherits and reads the same way).
- The value is passed to the child explicitly (target `args`, pool `initargs`, `functools.partial`),
  or the child sets the global itself before reading it (a pool `initializer`, the target).
- The reading function writes the global itself (a cache or a lazily built model it fills on first
  use), or through a function of its module it calls (`if config != _LAST: configure(config)`, a
  memo of what this process already did): the child builds its own. A lazy singleton the parent
  changed after building it is still reported: the child builds it again without those changes.
- The object is handed to the child (in a task's arguments, as a dataset's attribute): pickling
  carries the parent's fields with it.
- The library setting is set at module level, in the pool's `initializer` (as
  `initializer=torch.set_default_dtype`), or to the value a fresh interpreter has anyway
  (`torch.float32`), or the call names its own `dtype=`.

## Example
```python
import multiprocessing as mp

import torch

USE_FP16 = False

def configure(args):
    global USE_FP16
    USE_FP16 = args.fp16

def embed(batch):
    model = torch.nn.Linear(8, 8).cuda()
    if USE_FP16:
        model = model.half()
    ...

if __name__ == "__main__":
    configure(parse_args())
    with mp.get_context("spawn").Pool(2) as pool:
        pool.map(embed, batches)
```

Use instead:
```python
def init_worker(fp16):
    global USE_FP16
    USE_FP16 = fp16

if __name__ == "__main__":
    args = parse_args()
    with mp.get_context("spawn").Pool(2, initializer=init_worker, initargs=(args.fp16,)) as pool:
        pool.map(embed, batches)
```

## Fix
Pass the value to the child: as an argument of the target or task, through a pool's `initializer`
and `initargs`, or in the object the child is handed. Or compute it at module level, where every
process computes it alike.

gpulint offers no automatic fix: handing the value to the child (an argument, an `initializer`) changes the child's signature.

## References
- Python's multiprocessing programming guidelines, "Explicitly pass resources to child processes"
  and "Global variables" ("it will probably not be the same as the value in the parent process").
- A spawned generation pool that read a parent-set 8-bit loading flag as its default and ran out
  of memory (model_collaboration, fixed by passing the flag in the pool's arguments).
"#;

fn check(facts: &Facts, _: &dyn Sources) -> Vec<Diagnostic> {
    facts.stale_globals.iter().map(diagnostic).collect()
}

fn diagnostic(fact: &StaleGlobalFact) -> Diagnostic {
    if fact.setting {
        return setting_diagnostic(fact);
    }
    let name = &fact.name;
    let method = fact.start.method.name();
    let set = if fact.in_place {
        "changed in place"
    } else {
        "set"
    };
    let sees = if fact.defined {
        format!("it sees the value the import gives, not the one the parent {set} at run time")
    } else {
        format!("its import never binds `{name}`, which the parent {set} only at run time, so the read raises NameError")
    };
    let related = related(
        fact,
        format!("`{name}` is {set} here in the parent, at run time"),
    );
    Diagnostic {
        code: RULE.code,
        name: RULE.name,
        severity: RULE.severity,
        message: format!(
            "`{name}` is read in a child started by {method}, which imports the module afresh: {sees}"
        ),
        span: fact.read,
        label: "the import-time value in the child".into(),
        related,
        help: format!(
            "pass `{name}` to the child (as an argument, or set it in a pool `initializer` from `initargs`), or compute it at module level"
        ),
        fix: None,
    }
}

/// The parent's write, the child's start and what chose its start method.
fn related(fact: &StaleGlobalFact, written: String) -> Vec<Related> {
    let method = fact.start.method.name();
    let mut related = vec![
        Related {
            span: fact.written,
            message: written,
        },
        Related {
            span: fact.start.span,
            message: format!("the child is started by {method} here"),
        },
    ];
    if let Some(span) = fact.start.source.filter(|s| *s != fact.start.span) {
        related.push(Related {
            span,
            message: format!("{method} is chosen here"),
        });
    }
    related
}

/// A library's process-wide setting (`torch.set_default_dtype`) that the child starts without.
fn setting_diagnostic(fact: &StaleGlobalFact) -> Diagnostic {
    let name = &fact.name;
    let method = fact.start.method.name();
    let related = related(
        fact,
        format!("{name} is set here in the parent, at run time"),
    );
    Diagnostic {
        code: RULE.code,
        name: RULE.name,
        severity: RULE.severity,
        message: format!(
            "This call depends on {name}, which the parent set at run time; the child started by {method} is a fresh interpreter and has the library's default"
        ),
        span: fact.read,
        label: "made with the library's default in the child".into(),
        related,
        help: format!(
            "set {name} in the child too (a pool `initializer`, the start of the target), or pass it to this call"
        ),
        fix: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{span, Text};
    use gpulint_analyses::stale_globals::Start;
    use gpulint_core::effect::StartMethod;

    fn facts(defined: bool, source: Option<usize>) -> Facts {
        Facts {
            stale_globals: vec![StaleGlobalFact {
                read: span(40, 44),
                name: "FLAG".into(),
                written: span(0, 4),
                in_place: false,
                defined,
                setting: false,
                start: Start {
                    span: span(20, 30),
                    method: StartMethod::Spawn,
                    source: source.map(|s| span(s, s + 5)),
                },
            }],
            ..Facts::default()
        }
    }

    #[test]
    fn names_the_write_and_the_start() {
        let [d] = check(&facts(true, Some(10)), &Text("")).try_into().unwrap();
        assert_eq!(d.severity, Severity::Warning);
        assert_eq!(d.span, span(40, 44));
        assert_eq!(d.related.len(), 3);
        assert!(d.message.contains("the import gives"), "{}", d.message);
    }

    #[test]
    fn a_name_only_the_guard_binds_raises_in_the_child() {
        let [d] = check(&facts(false, None), &Text("")).try_into().unwrap();
        assert!(d.message.contains("NameError"), "{}", d.message);
        assert_eq!(d.related.len(), 2);
    }

    #[test]
    fn a_library_setting_is_worded_as_the_library_default() {
        let mut f = facts(true, None);
        f.stale_globals[0].setting = true;
        f.stale_globals[0].name = "torch's default dtype".into();
        let [d] = check(&f, &Text("")).try_into().unwrap();
        assert!(d.message.contains("library's default"), "{}", d.message);
        assert!(!d.message.contains('`'), "{}", d.message);
    }
}
