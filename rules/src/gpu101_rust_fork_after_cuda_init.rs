//! GPU101 rust-fork-after-cuda-init: GPU001's fork facts, for Rust code. The fork point is primary.

use gpulint_analyses::fork::ForkFact;
use gpulint_analyses::Facts;
use gpulint_core::effect::Init;

use crate::{Diagnostic, FixAvailability, Language, Related, Rule, Severity, Sources};

pub static RULE: Rule = Rule {
    code: "GPU101",
    name: "rust-fork-after-cuda-init",
    severity: Severity::Error,
    summary: "Rust: the process forks (`nix::unistd::fork`, `libc::fork`) after it initialised CUDA, and the child uses CUDA",
    docs: DOCS,
    check: Some(check),
    replaced_by: &[],
    language: Some(Language::Rust),
    fix: FixAvailability::None,
};

const DOCS: &str = r#"## What it does
Finds a `fork()` (`nix::unistd::fork`, `libc::fork`, the `fork` crate) in a Rust process that
already initialised CUDA — through cudarc (`CudaContext::new`, `CudaDevice::new`,
`driver::result::init`), candle (`Device::new_cuda`, `Device::cuda_if_available`), tch (a tensor
placed on `Device::Cuda(n)`, `.cuda()`) or cust (`quick_init`, `Context::new`) — when the child's
side of the fork (`Ok(ForkResult::Child) => ...`, `if pid == 0 { ... }`) then uses CUDA: a context,
stream, buffer or tensor it inherited, or a new context it tries to create.

## Why is this bad?
The CUDA driver does not survive `fork()`. The child has a copy of the parent's memory, so the
`Arc<CudaContext>` or candle `Device` looks valid, but the driver state behind it belongs to the
parent: calls fail with `CUDA_ERROR_NOT_INITIALIZED` (or hang), and a fresh `cuInit` in the child
fails too. Nothing in the child can make CUDA work again.

## When it is not a bug
- The fork happens before any CUDA call, and each child creates its own context.
- The child only does host work (or `exec`s another program) and never touches CUDA.
- `std::process::Command` starts a new program: it shares no CUDA state, and is never reported.
- Probing calls that return an error or zero devices in a child (`CudaContext::device_count`,
  `tch::Cuda::is_available`) are not counted as uses.

## Example
```rust
use cudarc::driver::CudaContext;
use nix::unistd::{fork, ForkResult};

fn main() {
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.default_stream();
    match unsafe { fork() }.unwrap() {
        ForkResult::Child => {
            let buf = stream.alloc_zeros::<f32>(1024).unwrap(); // fails in the child
            drop(buf);
            std::process::exit(0);
        }
        ForkResult::Parent { .. } => {}
    }
}
```

Use instead:
```rust
fn main() {
    match unsafe { fork() }.unwrap() {
        ForkResult::Child => {
            let ctx = CudaContext::new(0).unwrap(); // the child's own context
            let buf = ctx.default_stream().alloc_zeros::<f32>(1024).unwrap();
            drop(buf);
            std::process::exit(0);
        }
        ForkResult::Parent { .. } => {}
    }
    let ctx = CudaContext::new(0).unwrap(); // the parent initialises after forking
}
```

## Fix
Fork every worker before the first CUDA call, and let each create its own context; or start
workers as new programs (`std::process::Command`), which initialise CUDA themselves.

gpulint offers no automatic fix: forking before CUDA is initialised reorders the program.

## References
- CUDA C Programming Guide, "Initialization": the driver's state is not valid in a child created by
  `fork()`.
- The Python counterpart, GPU001 (`fork-after-cuda-init`).
"#;

fn check(facts: &Facts, _: &dyn Sources) -> Vec<Diagnostic> {
    facts.forks.iter().filter_map(diagnostic).collect()
}

fn diagnostic(fork: &ForkFact) -> Option<Diagnostic> {
    let (init, child) = fork.hazard()?;
    let state = match init.level {
        Init::Driver => "the CUDA driver was initialised",
        _ => "CUDA was initialised",
    };
    let mut related = vec![Related {
        span: init.span,
        message: format!("{state} here: {}", init.what),
    }];
    if child.span != init.span {
        related.push(Related {
            span: child.span,
            message: format!("the child uses CUDA here: {}", child.what),
        });
    }
    Some(Diagnostic {
        code: RULE.code,
        name: RULE.name,
        severity: RULE.severity,
        message: format!("This process forks after {state}, and the child uses CUDA: the driver does not work in a forked child"),
        span: fork.span,
        label: "the child process is forked here".into(),
        related,
        help: "fork before the first CUDA call and create the context in each child, or start workers with `std::process::Command`".into(),
        fix: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{span, Text};
    use gpulint_core::effect::{CudaInitSite, CudaUse, StartMethod};

    #[test]
    fn the_fork_is_primary_and_needs_a_use_in_the_child() {
        let fact = |used: bool| ForkFact {
            span: span(20, 26),
            launcher: &crate::testing::POOL,
            start_method: StartMethod::Fork,
            start_method_source: None,
            parent_init: Some(CudaInitSite {
                span: span(0, 5),
                level: Init::Context,
                what: "creates".into(),
            }),
            child_use: used.then(|| CudaUse {
                span: span(30, 35),
                what: "uses".into(),
            }),
            child_only_holds: false,
            child_code: String::new(),
            at_module_scope: false,
            other_layer_start: None,
            caller_unknown: false,
            made_by: None,
        };
        let facts = Facts {
            forks: vec![fact(true), fact(false)],
            ..Facts::default()
        };
        let [d] = check(&facts, &Text("")).try_into().unwrap();
        assert_eq!((d.span, d.related.len()), (span(20, 26), 2));
    }
}
