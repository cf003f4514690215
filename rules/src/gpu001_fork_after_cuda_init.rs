//! GPU001 fork-after-cuda-init.

use gpulint_analyses::fork::ForkFact;
use gpulint_analyses::Facts;
use gpulint_core::effect::Init;
use gpulint_core::effect::StartMethod;

use crate::fix::{spawn_at_fork_point, ForkPoint};
use crate::{
    Applicability, Diagnostic, Fix, FixAvailability, Language, Related, Rule, Severity, Sources,
};

pub static RULE: Rule = Rule {
    code: "GPU001",
    name: "fork-after-cuda-init",
    severity: Severity::Error,
    summary: "A child process is forked after CUDA was initialised, and the child uses CUDA",
    docs: DOCS,
    check: Some(check),
    replaced_by: &[],
    language: Some(Language::Python),
    fix: FixAvailability::Sometimes,
};

const DOCS: &str = r#"## What it does
Finds a child process created by `fork` (the default start method on Linux before Python 3.14) at a
point where the parent has already initialised CUDA, when the code the child runs uses CUDA: a Process
target, a Pool or executor function, a `Process` subclass's `run`, a Dataset's `__getitem__`/`__iter__`,
its transforms, `collate_fn`, `worker_init_fn`, a `datasets` `map` function, the `os.fork() == 0`
branch, or a CUDA tensor or model the child inherited.

Two fork points are not in the code: a Celery worker imports the module that defines its tasks
(`@app.task`, `@shared_task`) and then forks its prefork pool, whose children run them; and a web
server that preloads the application (gunicorn's `preload_app = True` in `gunicorn.conf.py`, or
`--preload` on the command line in a Procfile, Dockerfile or shell script next to the code)
imports the module in its master, then forks the workers that run its request handlers (Flask
and FastAPI routes). CUDA initialised by that import is inherited by every child; so is CUDA
initialised by gunicorn's master-side hooks (`on_starting`, `when_ready` in `gunicorn.conf.py`),
which run before the master forks its workers. A vLLM engine
with tensor or pipeline parallelism (`LLM(..., tensor_parallel_size=2)`) forks a worker per GPU
where the project pins vLLM before 0.6.5 and `VLLM_WORKER_MULTIPROC_METHOD` is not `spawn`.

Since torch 2.11 a child that merely holds CUDA or pinned memory it inherited — a dataset's
attribute, a variable of a `collate_fn` closure, a `Process` argument — and frees it when it
exits aborts too; such a child is reported even if its code never uses CUDA.

## Why is this bad?
A forked child gets a copy of the parent's memory, but not a working CUDA driver: the driver state does
not survive `fork`. Once the parent has called `cuInit` (directly, or through `torch.cuda.is_available()`,
`.cuda()`, `set_device`, a CuPy array...), every CUDA call in the child fails with error 3,
"initialization error"; PyTorch reports "Cannot re-initialize CUDA in forked subprocess". Some
libraries hang instead of failing. Nothing in the child can repair it: `set_device` or a device
context manager in the child fails the same way.

## When it is not a bug
- The child never touches CUDA and holds nothing CUDA-backed: `model.cuda()` followed by a
  DataLoader whose workers decode and augment on the CPU is the standard training loop, and stays
  silent.
- A Celery worker whose tasks load their model lazily, or in a `worker_process_init` handler, or
  that runs with `--pool solo`/`threads` (gpulint does not read the worker's command line: add a
  `# noqa: GPU001` on the task); a gunicorn server without `--preload`, or whose model is loaded in
  the `post_fork`/`post_worker_init` hook.
- The fork happens before the first initialisation in that process (a Pool forks its workers when it
  is constructed; a DataLoader at each `iter()`, so a loop that initialises CUDA in epoch 1 does fork
  after initialisation in epoch 2, and is reported).
- The child is started by `spawn` or `forkserver` (`get_context("spawn")`, `set_start_method("spawn")`
  before the fork, `multiprocessing_context="spawn"`, `mp_context=...`, `torch.multiprocessing.spawn`),
  or by `subprocess`, Ray or torchrun. A forkserver still fails if the main module's top level
  initialised CUDA, since the server imports it first.
- The function that starts the child leaves the start method to its callers, and every caller in
  the project sets spawn first: it is judged in their contexts. (A function nothing in the checked
  code calls is reported, with a note that it holds unless its caller sets spawn.)
- The child is started inside a process that was itself started by spawn after the program set
  `set_start_method("spawn")`: a spawned child takes its parent's start method before its target
  runs, so its own children spawn too.
- Only `torch.cuda.device_count()` ran (NVML-based since torch 1.13), or `torch.cuda.is_available()`
  with `PYTORCH_NVML_BASED_CUDA_CHECK=1`.
- On macOS and Windows (spawn), and on Linux from Python 3.14 (forkserver) unless the main module's
  top level initialised CUDA: gpulint follows `--target-version`/`--platform` and `requires-python`.

gpulint does not count `torch.load` without `map_location` as CUDA use: where the tensors land
depends on the file, which the code does not say.

## Example
```python
import torch
import torch.multiprocessing as mp

def score(batch):
    return model(batch.cuda()).cpu()

model = torch.nn.Linear(16, 2).cuda()      # the parent initialises CUDA
with mp.Pool(4) as pool:                   # the workers are forked from it
    pool.map(score, batches)               # and use CUDA: initialization error
```

Use instead:
```python
ctx = mp.get_context("spawn")              # each worker starts a fresh interpreter
with ctx.Pool(4) as pool:
    pool.map(score, batches)
```

## Fix
Create the child with a spawn or forkserver context at that fork point; or move the CUDA
initialisation after the fork (create the Pool first, load the model inside each worker); or keep the
child on the CPU and move its results to the GPU in the parent. Spawned children need picklable
callables (no lambdas or closures) and re-import the main module, so keep process creation under
`if __name__ == "__main__":`.

## Fix safety
Where the fork point's own call can say how to start its children, `gpulint check --fix
--unsafe-fixes` makes it spawn them: `multiprocessing_context="spawn"` on a DataLoader,
`mp_context=mp.get_context("spawn")` on a `ProcessPoolExecutor`, and
`mp.get_context("spawn").Pool(...)` or `.Process(...)` for a pool or process made on its package's
default context, spelled as the file names the package (`mp`, `multiprocessing`, or `get_context`
imported by name). The fix is unsafe: spawned children re-import the main module instead of
inheriting the parent's state (a global the parent set at run time is not there: GPU013), and what
they are handed must be picklable (GPU006). There is no fix for a fork point in module-level code
outside the main guard (spawned children would run it again: GPU004), in a file that names no
`get_context`, for a context made for fork, or for `os.fork()`, task queues, servers and engines,
whose start method is not one call's argument.

## References
- PyTorch, "Multiprocessing best practices": CUDA in subprocesses needs spawn or forkserver.
- pytorch/pytorch#40403, #17359 (DataLoader workers after CUDA init, epoch 2), #15734, #2517.
- pytorch/pytorch PR 84879 (`device_count` through NVML) and PR 85951 (`PYTORCH_NVML_BASED_CUDA_CHECK`).
- huggingface/datasets#6435 (`map(num_proc=...)` forks through `multiprocess`).
- celery/celery#3402 and reports of "Cannot re-initialize CUDA in forked subprocess" from Celery
  task modules that load a model at import; gunicorn `--preload` reports of the same error.
- vllm-project/speculators#887 and NVIDIA/recsys-examples#352: forked loader workers that only
  held pinned memory, aborting at exit on torch 2.11.
"#;

fn check(facts: &Facts, sources: &dyn Sources) -> Vec<Diagnostic> {
    facts
        .forks
        .iter()
        .filter_map(|f| diagnostic(f, sources))
        .collect()
}

/// Start the children by spawn at the fork point, where its own call can say so. Unsafe: spawned
/// children re-import the main module instead of inheriting the parent's state, and everything
/// sent to them must be picklable.
fn spawn_fix(fork: &ForkFact, sources: &dyn Sources) -> Option<Fix> {
    let point = ForkPoint {
        span: fork.span,
        fix: fork.launcher.spawn_fix,
        at_module_scope: fork.at_module_scope,
        made_by: fork.made_by.as_ref(),
    };
    let (edit, what) = spawn_at_fork_point(sources.text(fork.span.file), &point)?;
    Some(Fix {
        applicability: Applicability::Unsafe,
        message: format!("{what}: {SPAWN_IS_UNSAFE}"),
        edits: vec![edit],
    })
}

/// Why starting a child by spawn may change what a program does.
pub(crate) const SPAWN_IS_UNSAFE: &str = "spawned children re-import the main module instead of inheriting the parent's state (keep process creation under `if __name__ == \"__main__\":`), and what they receive must be picklable (no lambdas or local functions)";

fn diagnostic(fork: &ForkFact, sources: &dyn Sources) -> Option<Diagnostic> {
    let (init, child) = fork.hazard()?;
    let state = match init.level {
        Init::Driver => "the CUDA driver was initialised",
        _ => "CUDA was initialised",
    };
    let how = match fork.start_method {
        StartMethod::Forkserver => "from a forkserver that imported the main module",
        _ => "by fork",
    };
    let subject = fork.launcher.subject;
    let mut related = vec![Related {
        span: init.span,
        message: format!("{state} here: {}", init.what),
    }];
    if fork.child_only_holds {
        related.push(Related {
            span: child.span,
            message: child.what.to_string(),
        });
    } else if child.span != init.span && child.span != fork.span {
        related.push(Related {
            span: child.span,
            message: format!("the child uses CUDA here: {}", child.what),
        });
    }
    if let (Some(src), StartMethod::Fork) = (fork.start_method_source, fork.start_method) {
        if src != fork.span && src != init.span {
            related.push(Related {
                span: src,
                message: "the start method is set to fork here".into(),
            });
        }
    }
    if let Some(other) = fork.wrong_layer() {
        related.push(Related {
            span: other.span,
            message: format!(
                "`set_start_method(\"{}\")` here sets `{}`'s default, which this child does not obey (GPU012)",
                other.method.name(),
                other.set_on
            ),
        });
    }
    let code = if fork.child_code.is_empty() {
        "the child's code"
    } else {
        &fork.child_code
    };
    let uses = if fork.child_only_holds {
        "the child holds CUDA memory it frees when it exits".to_string()
    } else {
        format!("{code} uses CUDA in the child")
    };
    Some(Diagnostic {
        code: RULE.code,
        name: RULE.name,
        severity: RULE.severity,
        message: format!(
            "{subject} starts a child process {how} after {state}, and {uses}{}",
            if fork.caller_unknown {
                " (nothing in the checked code calls the function that starts it: this holds \
                 unless its caller sets spawn or forkserver first)"
            } else {
                ""
            }
        ),
        span: fork.span,
        label: match (fork.start_method, fork.launcher.label) {
            (StartMethod::Forkserver, _) => format!("the child is forked here, {how}"),
            (_, Some(label)) => label.to_string(),
            (_, None) => "the child process is forked here".to_string(),
        },
        related,
        help: format!(
            "{}; or initialise CUDA only after the fork; or keep the child on the CPU",
            fork.launcher.spawn_help
        ),
        fix: spawn_fix(fork, sources),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::span;
    use gpulint_core::effect::{CudaInitSite, CudaUse};

    const SOURCE: &str = "loader = DataLoader(ds, num_workers=2)\n";

    fn fork(start_method: StartMethod, used: bool) -> ForkFact {
        ForkFact {
            span: span(9, 38),
            launcher: &crate::testing::LOADER,
            start_method,
            start_method_source: None,
            parent_init: Some(CudaInitSite {
                span: span(0, 6),
                level: Init::Driver,
                what: "`is_available` calls `cuInit`".into(),
            }),
            child_only_holds: false,
            child_use: used.then(|| CudaUse {
                span: span(20, 22),
                what: "uses `ds`, a CUDA object".into(),
            }),
            child_code: "`Frames.__getitem__`".into(),
            at_module_scope: false,
            other_layer_start: None,
            caller_unknown: false,
            made_by: None,
        }
    }

    fn render(fork: ForkFact) -> Vec<Diagnostic> {
        let facts = Facts {
            forks: vec![fork],
            ..Facts::default()
        };
        check(&facts, &crate::testing::Text(SOURCE))
    }

    #[test]
    fn a_forked_child_that_uses_cuda_is_reported_with_both_sites_and_a_spawn_fix() {
        let [d] = render(fork(StartMethod::Fork, true)).try_into().unwrap();
        assert_eq!(
            d.message,
            "This DataLoader starts a child process by fork after the CUDA driver was initialised, and `Frames.__getitem__` uses CUDA in the child"
        );
        assert_eq!(d.related.len(), 2);
        assert!(d.related[0]
            .message
            .starts_with("the CUDA driver was initialised here"));
        let fix = d.fix.expect("a DataLoader takes a spawn context");
        assert_eq!(fix.applicability, Applicability::Unsafe);
        assert_eq!(fix.edits[0].content, ", multiprocessing_context=\"spawn\"");
    }

    #[test]
    fn no_spawn_fix_for_a_loader_in_unguarded_module_code() {
        // Spawned workers would re-import the module and create the loader again (GPU004).
        let unguarded = ForkFact {
            at_module_scope: true,
            ..fork(StartMethod::Fork, true)
        };
        let [d] = render(unguarded).try_into().unwrap();
        assert!(d.fix.is_none());
    }

    #[test]
    fn spawned_or_cpu_only_children_are_not_reported() {
        assert!(render(fork(StartMethod::Spawn, true)).is_empty());
        assert!(render(fork(StartMethod::Fork, false)).is_empty());
    }

    #[test]
    fn a_forkserver_child_names_the_server() {
        let [d] = render(fork(StartMethod::Forkserver, true))
            .try_into()
            .unwrap();
        assert!(d
            .message
            .contains("from a forkserver that imported the main module"));
        assert!(d.label.contains("forkserver"));
    }
}
