//! GPU007 cuda-visible-devices-after-init: the GPU selection written after the driver read it.

use gpulint_analyses::visible_devices::LateVisibilityFact;
use gpulint_analyses::Facts;
use gpulint_core::effect::Init;

use crate::{Diagnostic, FixAvailability, Language, Related, Rule, Severity, Sources};

pub static RULE: Rule = Rule {
    code: "GPU007",
    name: "cuda-visible-devices-after-init",
    severity: Severity::Error,
    summary: "`CUDA_VISIBLE_DEVICES` is written after this process initialised CUDA: the driver ignores it and the process stays on GPU 0",
    docs: DOCS,
    check: Some(check),
    replaced_by: &[],
    language: Some(Language::Python),
    fix: FixAvailability::None,
};

const DOCS: &str = r#"## What it does
Finds a write to `CUDA_VISIBLE_DEVICES` (`os.environ[...] = ...`, `os.environ.setdefault`,
`os.putenv`) in a process that has already initialised the CUDA driver, followed by CUDA work in the
same process. The initialisation may be the process's own (`torch.cuda.is_available()`, a tensor on
`"cuda"`, a library loader) or, in a child started by `spawn`, what the re-import of the main module
(or of a module it imports) ran before the child's own code: a module-level `torch.cuda.init()`, a
model moved to the GPU at import.

## Why is this bad?
The driver reads `CUDA_VISIBLE_DEVICES` once, when it initialises (`cuInit`). A later write changes
the environment, but not the devices this process sees, and nothing reports it. A worker meant to
use GPU 3 keeps using GPU 0; with several workers, they all pile onto GPU 0 until it runs out of
memory. Reports of "every worker is on GPU 0" mostly come from this, not from a pinned global.
(`torch.cuda.device_count()` reads the variable again through NVML, so it may even print the
intended count while the work still runs on GPU 0.)

## When it is not a bug
- The write comes before anything initialises CUDA in that process (`import torch` does not;
  `torch.cuda.device_count()` does not either).
- The process writes it for the processes it starts next (spawned workers and subprocesses read it
  when they start) and does no CUDA work itself afterwards.
- The child was forked from an initialised parent: it cannot use CUDA at all, which GPU001 reports.
- The write is on a branch that returns before any CUDA use, and the CUDA use is on another branch
  (its caller is still followed: a caller that uses CUDA after the call is reported).
- CUDA was initialised only on a path that returned before the write.
- The write selects no GPU of its own: it empties the variable (a guard that makes any CUDA start
  inside a block fail), or writes back a selection the process was launched with (a saved value
  restored after such a block, or ROCm's `HIP_VISIBLE_DEVICES` copied into it).
- The CUDA work after the write runs in a process started after it: vLLM from 0.8 builds its engine
  in a child process that inherits the variable (unless `VLLM_ENABLE_V1_MULTIPROCESSING=0`; where
  the project does not pin vLLM, gpulint assumes a recent one).

## Example
```python
import os
import torch
import torch.multiprocessing as mp

torch.cuda.init()            # runs again in every spawned worker, at import

def worker(rank):
    os.environ["CUDA_VISIBLE_DEVICES"] = str(rank)
    model = torch.nn.Linear(8, 8).cuda()

if __name__ == "__main__":
    mp.spawn(worker, nprocs=2)
```

Use instead:
```python
def worker(rank):
    os.environ["CUDA_VISIBLE_DEVICES"] = str(rank)   # before any CUDA call in this process
    model = torch.nn.Linear(8, 8).cuda()

if __name__ == "__main__":
    mp.spawn(worker, nprocs=2)
```

## Fix
Write the variable before anything in the process initialises CUDA: first thing in the worker, and
keep CUDA calls out of module-level code that spawned workers re-import (move them under
`if __name__ == "__main__":` or into functions). Or leave the variable alone and select the device
with `torch.cuda.set_device(rank)`.

gpulint offers no automatic fix: where the write belongs (in which process, before which initialisation) depends on how the job is launched.

## References
- Reports of all spawned workers landing on GPU 0 because a module-level CUDA call ran before each
  worker's `CUDA_VISIBLE_DEVICES` write (SeedVR2#30, EleutherAI/bergson#267).
- NVIDIA's CUDA environment variable documentation: the variable is read at initialisation.
"#;

fn check(facts: &Facts, _: &dyn Sources) -> Vec<Diagnostic> {
    facts.late_visibility.iter().map(diagnostic).collect()
}

fn diagnostic(fact: &LateVisibilityFact) -> Diagnostic {
    let state = match fact.init.level {
        Init::Driver => "the CUDA driver was initialised",
        _ => "CUDA was initialised",
    };
    let when = if fact.init_at_reimport {
        " while this spawned child re-imported the main module"
    } else {
        ""
    };
    let mut related = vec![Related {
        span: fact.init.span,
        message: format!("{state} here{when}: {}", fact.init.what),
    }];
    if fact.used.span != fact.init.span {
        related.push(Related {
            span: fact.used.span,
            message: format!(
                "CUDA is used here, on the devices seen at initialisation: {}",
                fact.used.what
            ),
        });
    }
    let help = if fact.init_at_reimport {
        "keep CUDA calls out of module-level code (spawned children re-import it), or write the variable before them"
    } else {
        "write the variable before anything initialises CUDA in this process, or select the device with `torch.cuda.set_device`"
    };
    Diagnostic {
        code: RULE.code,
        name: RULE.name,
        severity: RULE.severity,
        message: format!(
            "`CUDA_VISIBLE_DEVICES` is written after {state}{when}: the driver ignores it, and this process keeps the GPUs it saw then"
        ),
        span: fact.write,
        label: "ignored: the driver read the variable at initialisation".into(),
        related,
        help: help.into(),
        fix: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{span, Text};
    use gpulint_core::effect::{CudaInitSite, CudaUse};

    fn facts(at_reimport: bool) -> Facts {
        Facts {
            late_visibility: vec![LateVisibilityFact {
                write: span(20, 30),
                init: CudaInitSite {
                    span: span(0, 5),
                    level: Init::Context,
                    what: "init".into(),
                },
                init_at_reimport: at_reimport,
                used: CudaUse {
                    span: span(40, 45),
                    what: "use".into(),
                },
            }],
            ..Facts::default()
        }
    }

    #[test]
    fn the_write_is_primary_with_the_init_and_the_use_related() {
        let [d] = check(&facts(false), &Text("")).try_into().unwrap();
        assert_eq!(d.span, span(20, 30));
        assert_eq!(d.related.len(), 2);
        assert_eq!(d.severity, Severity::Error);
    }

    #[test]
    fn a_reimport_initialisation_is_named_as_such() {
        let [d] = check(&facts(true), &Text("")).try_into().unwrap();
        assert!(d.message.contains("re-imported"), "{}", d.message);
    }
}
