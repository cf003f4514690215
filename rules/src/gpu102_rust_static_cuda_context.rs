//! GPU102 rust-static-cuda-context: a process-wide static holding a CUDA object, handed out for
//! any device or used in a forked child. The static's declaration is primary.

use gpulint_analyses::once_global::{OnceGlobalFact, OnceMisuse};
use gpulint_analyses::Facts;

use crate::{Diagnostic, FixAvailability, Language, Related, Rule, Severity, Sources};

pub static RULE: Rule = Rule {
    code: "GPU102",
    name: "rust-static-cuda-context",
    severity: Severity::Error,
    summary: "Rust: a process-wide static (`OnceLock`, `LazyLock`, `lazy_static!`, `once_cell`, the forking thread's `thread_local!`) holds a CUDA context or device that is handed out for other devices, or used in a forked child",
    docs: DOCS,
    check: Some(check),
    replaced_by: &[],
    language: Some(Language::Rust),
    fix: FixAvailability::None,
};

const DOCS: &str = r#"## What it does
Finds a `static` initialised once per process — `OnceLock`/`OnceCell` (`get_or_init`, `set`),
`LazyLock`, `once_cell::sync::Lazy`, `lazy_static!` — or once per thread (`thread_local!`, read
with `with`), that holds a CUDA context, device or stream (cudarc, candle, tch, cust's
`quick_init` or `Context::new`), when either
- a function that takes a device ordinal returns the static's object: the first call decides the
  device, and every later call gets it whatever ordinal it asks for; or
- a child forked after the parent filled the static uses its object.

## Why is this bad?
A once-initialised static keeps its first value for the life of the process. A helper such as
`fn device(ordinal: usize) -> &'static CudaDevice` that caches in one `OnceLock` silently returns
device 0 when asked for device 1: work meant for two GPUs piles onto one, or fails with "tensors on
different devices". After `fork()`, the child inherits the static already filled, holding the
parent's context, which does not work in the child (see GPU101); the static never runs its
initialiser again in the child.

## When it is not a bug
- The static holds one object per device (a `Vec` or map indexed by ordinal), or the function takes
  no ordinal: a process that uses one GPU may cache its context.
- The process picks its device once at start-up (`CTX.set(CudaContext::new(local_rank)?)`) and
  nothing asks the static for another.
- The static is first read in the child (after the fork), so the child creates its own object.
- A `thread_local!` filled on another thread than the one that forks: `fork()` copies only the
  calling thread, so the child's slot is empty and it opens its own context (which GPU101 reports
  when the process had initialised CUDA).

## Example
```rust
use std::sync::{Arc, OnceLock};
use cudarc::driver::CudaContext;

static CTX: OnceLock<Arc<CudaContext>> = OnceLock::new();

pub fn context(ordinal: usize) -> Arc<CudaContext> {
    CTX.get_or_init(|| CudaContext::new(ordinal).unwrap()).clone()
}
```

Use instead:
```rust
use std::sync::{Arc, Mutex, OnceLock};
use std::collections::HashMap;

static CTXS: OnceLock<Mutex<HashMap<usize, Arc<CudaContext>>>> = OnceLock::new();

pub fn context(ordinal: usize) -> Arc<CudaContext> {
    let map = CTXS.get_or_init(Default::default);
    let mut map = map.lock().unwrap();
    map.entry(ordinal)
        .or_insert_with(|| CudaContext::new(ordinal).unwrap())
        .clone()
}
```

## Fix
Key the cache by ordinal (one object per device), or pass the context explicitly; for forked
workers, fork before the static is first read, or start them with `std::process::Command`.

gpulint offers no automatic fix: keying the cache by ordinal changes its type.

## References
- `std::sync::OnceLock` and `LazyLock` documentation: initialised at most once per process.
- CUDA C Programming Guide, "Initialization", on contexts after `fork()`.
"#;

fn check(facts: &Facts, _: &dyn Sources) -> Vec<Diagnostic> {
    facts.once_globals.iter().map(diagnostic).collect()
}

fn diagnostic(fact: &OnceGlobalFact) -> Diagnostic {
    let name = &fact.name;
    let (message, related, help) = match &fact.misuse {
        OnceMisuse::ReturnedForAnyDevice { ordinal, returned } => (
            format!("`{name}` holds one CUDA object for the whole process, but a function asked for a device ordinal returns it: every call gets the first call's device"),
            vec![
                Related {
                    span: *returned,
                    message: "this function returns the static's object".into(),
                },
                Related {
                    span: *ordinal,
                    message: "whatever device this asks for".into(),
                },
            ],
            "keep one object per device (a map keyed by ordinal), or pass the context explicitly",
        ),
        OnceMisuse::UsedInForkedChild { fork, use_site } => (
            format!("`{name}` was filled with a CUDA object before a fork, and the child uses it: the parent's context does not work in the child"),
            vec![
                Related {
                    span: *fork,
                    message: "the child process is forked here".into(),
                },
                Related {
                    span: *use_site,
                    message: "the child uses the static's object here".into(),
                },
            ],
            "fork before the static is first read, so each child fills its own, or start workers with `std::process::Command`",
        ),
    };
    Diagnostic {
        code: RULE.code,
        name: RULE.name,
        severity: RULE.severity,
        message,
        span: fact.binding,
        label: "initialised once per process".into(),
        related,
        help: help.into(),
        fix: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{span, Text};

    #[test]
    fn the_static_is_primary() {
        let facts = Facts {
            once_globals: vec![OnceGlobalFact {
                binding: span(0, 10),
                name: "CTX".into(),
                misuse: OnceMisuse::UsedInForkedChild {
                    fork: span(20, 26),
                    use_site: span(30, 40),
                },
            }],
            ..Facts::default()
        };
        let [d] = check(&facts, &Text("")).try_into().unwrap();
        assert_eq!((d.span, d.related.len()), (span(0, 10), 2));
    }
}
