//! GPU012 start-method-wrong-layer: `set_start_method` on one multiprocessing package while the
//! child that needs it is created through another (or by a raw fork).

use gpulint_analyses::fork::ForkFact;
use gpulint_analyses::Facts;

use crate::{Diagnostic, FixAvailability, Language, Related, Rule, Severity, Sources};

pub static RULE: Rule = Rule {
    code: "GPU012",
    name: "start-method-wrong-layer",
    severity: Severity::Warning,
    summary: "`set_start_method` asks for spawn on one multiprocessing package, but the child that uses CUDA is forked through another one (`datasets`' `multiprocess`) or by `os.fork()`",
    docs: DOCS,
    check: Some(check),
    replaced_by: &[],
    language: Some(Language::Python),
    fix: FixAvailability::None,
};

const DOCS: &str = r#"## What it does
Finds a `set_start_method("spawn")` (or `"forkserver"`) made on one multiprocessing package while a
child that needs it is created through another package, which keeps its own default, or by a raw
`os.fork()`, which obeys none; and that child uses CUDA its parent had initialised (GPU001 reports the
fork itself). The usual case is `multiprocessing.set_start_method("spawn")`, or
`torch.multiprocessing`'s, before a Hugging Face `datasets` `map(..., num_proc=N)`: `datasets` makes
its workers with the separate `multiprocess` package. The reverse (`multiprocess.set_start_method`
before a `multiprocessing` pool or DataLoader) is found too.

## Why is this bad?
Every package has its own default context. `torch.multiprocessing` shares `multiprocessing`'s, but
`multiprocess` (the `dill`-based copy that `datasets` uses) has its own, which stays fork on Linux
before Python 3.14. The call looks like the cure for "Cannot re-initialize CUDA in forked subprocess",
yet the child is still forked from the initialised parent and fails the same way; the real fix is
never made. The finding points at the call that does not do what it seems to, and names the fork
point it misses.

## When it is not a bug
- The child does not use CUDA, or the parent had not initialised CUDA when the child started (no
  GPU001 at the fork point).
- The start method is also set on the package that creates the child
  (`multiprocess.set_start_method("spawn")` for `datasets`), or the fork point takes its own context
  (`get_context("spawn").Pool()`, `multiprocessing_context="spawn"`, `mp_context=...`).
- The call on the other package asks for `fork` anyway.

Servers, task queues and engines that fork their workers themselves obey no `set_start_method`
either, and are reported the same way where gpulint models their fork: Celery's prefork pool,
gunicorn with `--preload`, and vLLM's tensor-parallel workers (chosen by
`VLLM_WORKER_MULTIPROC_METHOD`; before vLLM 0.6.5 fork by default, from then spawn where CUDA is
already initialised, as the project's pinned `vllm` version says). Sanic is not modelled, so
gpulint stays silent there.

## Example
```python
import multiprocessing
import torch
from datasets import load_dataset

encoder = torch.nn.Linear(16, 16).cuda()

def encode(batch):
    return {"code": encoder(torch.tensor(batch["x"], device="cuda")).tolist()}

if __name__ == "__main__":
    multiprocessing.set_start_method("spawn")        # datasets does not use this package
    rows = load_dataset("csv", data_files="rows.csv")["train"]
    rows = rows.map(encode, batched=True, num_proc=4)  # still forked: GPU001
```

Use instead:
```python
if __name__ == "__main__":
    import multiprocess
    multiprocess.set_start_method("spawn")           # the package that creates the workers
    rows = load_dataset("csv", data_files="rows.csv")["train"]
    rows = rows.map(encode, batched=True, num_proc=4)
```

## Fix
Set the start method on the package that creates the child (`multiprocess.set_start_method("spawn")`
for `datasets`, under `if __name__ == "__main__":`); or keep CUDA out of the parent until the children
exist (load the model inside the mapped function, on the rank's device). For a raw `os.fork()`, fork
before CUDA is initialised or start the child with a spawn context or `subprocess`.

gpulint offers no automatic fix: the setting belongs to the package that creates the child, which the file may not import.

## References
- huggingface/datasets#6435 and #6186: `multiprocessing.set_start_method` does not change how
  `map(num_proc=...)` starts its workers; the datasets documentation sets it on `multiprocess`.
- vllm-project/vllm#6152 and benoitc/gunicorn#3130: `set_start_method("spawn")` added where another
  component forks, with no effect.
"#;

fn check(facts: &Facts, _: &dyn Sources) -> Vec<Diagnostic> {
    facts.forks.iter().filter_map(diagnostic).collect()
}

fn diagnostic(fork: &ForkFact) -> Option<Diagnostic> {
    let other = fork.wrong_layer()?;
    let (init, _) = fork.hazard()?;
    let asked = other.method.name();
    // "This pool" opens GPU001's sentences; here it follows a colon.
    let subject = fork.launcher.subject.replacen("This", "this", 1);
    let (how, help) = match &other.forks_through {
        Some(package) => (
            format!(
                "{subject} creates it through `{package}`, whose own start method is still {}",
                fork.start_method.name()
            ),
            format!(
                "set it on the package that creates the child: `{package}.set_start_method(\"{asked}\")` under `if __name__ == \"__main__\":`; or initialise CUDA only after the children start"
            ),
        ),
        None => (
            format!("{subject} forks it directly, obeying no start method"),
            "fork before CUDA is initialised, or start the child from a spawn context or with `subprocess`".to_string(),
        ),
    };
    Some(Diagnostic {
        code: RULE.code,
        name: RULE.name,
        severity: RULE.severity,
        message: format!(
            "`set_start_method(\"{asked}\")` sets the default of `{}` only, and does not reach the child that needs it: {how}",
            other.set_on
        ),
        span: other.span,
        label: format!("sets `{}`'s start method", other.set_on),
        related: vec![
            Related {
                span: fork.span,
                message: format!(
                    "the child that uses CUDA is started here by {} (GPU001)",
                    fork.start_method.name()
                ),
            },
            Related {
                span: init.span,
                message: format!("CUDA is initialised in the parent here: {}", init.what),
            },
        ],
        help,
        fix: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{span, Text};
    use gpulint_core::effect::{CudaInitSite, CudaUse, Init, OtherLayerStart, StartMethod};

    fn fork(method: StartMethod, used: bool, forks_through: Option<&str>) -> ForkFact {
        ForkFact {
            span: span(60, 70),
            launcher: &crate::testing::DATA_MAP,
            start_method: StartMethod::Fork,
            start_method_source: None,
            parent_init: Some(CudaInitSite {
                span: span(0, 5),
                level: Init::Context,
                what: "`.cuda()` creates a CUDA context".into(),
            }),
            child_only_holds: false,
            child_use: used.then(|| CudaUse {
                span: span(30, 35),
                what: "uses `encoder`".into(),
            }),
            child_code: "`encode`".into(),
            at_module_scope: false,
            other_layer_start: Some(OtherLayerStart {
                span: span(40, 50),
                method,
                set_on: "multiprocessing".into(),
                forks_through: forks_through.map(Into::into),
            }),
            caller_unknown: false,
            made_by: None,
        }
    }

    fn render(fork: ForkFact) -> Vec<Diagnostic> {
        let facts = Facts {
            forks: vec![fork],
            ..Facts::default()
        };
        check(&facts, &Text(""))
    }

    #[test]
    fn the_ignored_call_is_reported_with_the_fork_it_misses() {
        let [d] = render(fork(StartMethod::Spawn, true, Some("multiprocess")))
            .try_into()
            .unwrap();
        assert_eq!(d.span, span(40, 50));
        assert_eq!(d.severity, Severity::Warning);
        assert!(d.message.contains("through `multiprocess`"));
        assert_eq!(d.related[0].span, span(60, 70));
        assert!(d
            .help
            .contains("`multiprocess.set_start_method(\"spawn\")`"));
    }

    #[test]
    fn a_raw_fork_obeys_no_start_method() {
        let [d] = render(fork(StartMethod::Spawn, true, None))
            .try_into()
            .unwrap();
        assert!(d.message.contains("obeying no start method"));
    }

    #[test]
    fn silent_without_the_fork_hazard_or_when_fork_was_asked_for() {
        assert!(render(fork(StartMethod::Spawn, false, Some("multiprocess"))).is_empty());
        assert!(render(fork(StartMethod::Fork, true, Some("multiprocess"))).is_empty());
    }
}
