//! GPU014 fork-after-threadpool: a child forked after the parent's host-tensor operations started
//! torch's intra-op thread pool, and the child runs such operations itself.

use gpulint_analyses::threadpool::ThreadpoolFact;
use gpulint_analyses::Facts;

use crate::fix::{spawn_at_fork_point, ForkPoint};
use crate::gpu001_fork_after_cuda_init::SPAWN_IS_UNSAFE;
use crate::{
    Applicability, Diagnostic, Fix, FixAvailability, Language, Related, Rule, Severity, Sources,
};

pub static RULE: Rule = Rule {
    code: "GPU014",
    name: "fork-after-threadpool",
    severity: Severity::Warning,
    summary: "A child is forked after torch's CPU operations started their thread pool, and the child runs such operations: it can hang",
    docs: DOCS,
    check: Some(check),
    replaced_by: &[],
    language: Some(Language::Python),
    fix: FixAvailability::Sometimes,
};

const DOCS: &str = r#"## What it does
Finds a child process created by `fork` after the parent ran a torch operation on host (CPU)
tensors that torch splits over its intra-op thread pool, when the child runs such an operation
too: a `Process` target, a pool's function, the `os.fork() == 0` branch.

Whether an operation uses the pool is a property of the operation and of the tensors' size,
taken from torch's own operator metadata (`native_functions.yaml` of torch 2.11.0, turned into a
table by `scripts/torch_ops.py`):
- BLAS, LAPACK and oneDNN operations use threads at any size: matrix products (`a @ b`,
  `matmul`, `mm`, `bmm`, `addmm`, `einsum`, `tensordot`), linear layers and convolutions,
  factorisations and solvers (`cholesky`, `torch.linalg.solve`, `inv`, `svd`, `qr`...), and
  calling a `torch.nn` layer built on the CPU, or a project's module that keeps such layers (its
  forward pass).
- Element-wise operations (those torch tags `pointwise`, and `+`, `-`, `*`, `/`, `**` on
  tensors), reductions, copies (`clone`, `copy_`), fills (`torch.zeros`, `ones`, `full`) and
  every other operator on tensors split their work only above ATen's grain size
  (`at::internal::GRAIN_SIZE`, 32768 elements). gpulint reports them only where it knows the
  tensor is larger: a factory with constant sizes (`torch.rand(512, 512)`), what element-wise
  operations make from it, and the weights of layers built with constant sizes
  (`nn.Linear(4096, 1024)`, `nn.Embedding`), which `model.load_state_dict(...)` copies one
  `copy_` per parameter. Where the size is not known, they are not reported.
- Views (`view`, `t`, `narrow`...), random sampling (`rand`, `randn`, `normal_`: torch draws
  from one generator on the calling thread for the common distributions), metadata setters
  (`resize_`, `requires_grad_`) and queries that return no tensor never count.

## Why is this bad?
Torch's CPU kernels run on an OpenMP thread pool, whose threads start at the first parallel
operation. `fork` copies only the calling thread: the child inherits the pool's bookkeeping,
which says its threads exist, but none of the threads. With GNU OpenMP (the default in Linux
builds of PyTorch), the child's first parallel region waits for them and never returns: the child
hangs at 0% CPU, without an error. Python 3.12 warns about it ("This process is multi-threaded, use
of fork() may lead to deadlocks in the child"). On an H100 host with torch 2.11, a 512 × 512 matrix
product in a forked child hung after the parent had run one.

## When it is not a bug
- The child limits the pool to one thread before its first operation
  (`torch.set_num_threads(1)`): one thread needs no pool. DataLoader workers do this themselves,
  so they are not reported.
- The child is started by spawn or forkserver: a fresh interpreter, with a pool of its own.
- The parent's element-wise work, reductions, fills and copies (restoring a small model's state,
  calling a module of its own that keeps tensors but no `torch.nn` layer) were on tensors of at
  most 32768 elements: torch runs them on the calling thread, which starts no pool.
- The parent ran no such operation before the fork (create the pool first), or ran only on CUDA
  tensors (GPU001 covers CUDA in forked children). A `Pool`'s workers are forked when it is made:
  tasks handed to it later (`apply_async`, `map`) run in workers that never had the parent's later
  threads, unless `maxtasksperchild` replaces them by new forks.
- gpulint only knows tensors it saw created (`torch.randn(...)`, `torch.tensor(...)`, `x.cpu()`)
  and `torch.nn` layers built on the CPU (calling one is a forward pass). Element-wise work on
  tensors whose size it cannot know (read from a file, built from a list) is not reported, and
  neither are the parameters of models built by libraries (a torchvision `resnet50()`), so some
  hangs go unreported.

## Example
```python
import multiprocessing as mp
import torch

def embed(rows):
    basis = torch.randn(128, 128)
    return rows @ basis                 # waits for pool threads the child does not have

if __name__ == "__main__":
    weights = torch.randn(2048, 2048)
    gram = weights @ weights.T          # starts the intra-op thread pool in the parent
    with mp.Pool(4) as pool:            # forked workers inherit a pool without threads
        pool.map(embed, chunks)
```

Use instead:
```python
def embed(rows):
    torch.set_num_threads(1)            # or start the pool from a spawn context
    basis = torch.randn(128, 128)
    return rows @ basis
```

## Fix
Start the workers by spawn or forkserver (`multiprocessing.get_context("spawn")`); or call
`torch.set_num_threads(1)` first thing in each child (as a pool `initializer`); or create the
pool before the parent's first CPU operation.

## Fix safety
`gpulint check --fix --unsafe-fixes` starts the children by spawn where the fork point's own call can
say so, as for GPU001 (a spawned child starts a thread pool of its own). Unsafe for the same reasons:
spawned children re-import the main module instead of inheriting the parent's state, and what they
are handed must be picklable.

## References
- ATen's `parallel_for` and TensorIterator: work of more than `at::internal::GRAIN_SIZE` elements
  is split across the intra-op pool, smaller work runs on the calling thread.
- pytorch/pytorch issues about forked children hanging in `matmul`/`mm` after the parent used
  torch on the CPU (GNU OpenMP is not fork-safe), and the DataLoader worker loop, which sets one
  thread per worker for this reason.
- Python 3.12's `DeprecationWarning` on `fork()` in a multi-threaded process.
"#;

fn check(facts: &Facts, sources: &dyn Sources) -> Vec<Diagnostic> {
    facts
        .threadpool_forks
        .iter()
        .map(|f| diagnostic(f, sources))
        .collect()
}

/// A spawned child starts its own thread pool: the fix GPU001 makes at the same fork point.
fn spawn_fix(fact: &ThreadpoolFact, sources: &dyn Sources) -> Option<Fix> {
    let point = ForkPoint {
        span: fact.span,
        fix: fact.launcher.spawn_fix,
        at_module_scope: fact.at_module_scope,
        made_by: fact.made_by.as_ref(),
    };
    let (edit, what) = spawn_at_fork_point(sources.text(fact.span.file), &point)?;
    Some(Fix {
        applicability: Applicability::Unsafe,
        message: format!("{what}: {SPAWN_IS_UNSAFE}"),
        edits: vec![edit],
    })
}

fn diagnostic(fact: &ThreadpoolFact, sources: &dyn Sources) -> Diagnostic {
    let subject = fact.launcher.subject;
    let code = if fact.child_code.is_empty() {
        "the child"
    } else {
        &fact.child_code
    };
    Diagnostic {
        code: RULE.code,
        name: RULE.name,
        severity: RULE.severity,
        message: format!(
            "{subject} forks a child after torch's CPU thread pool started, and {code} runs a parallel CPU operation in the child: it can hang"
        ),
        span: fact.span,
        label: "the child process is forked here, without the pool's threads".into(),
        related: vec![
            Related {
                span: fact.parent_compute.span,
                message: format!("the pool starts here: {}", fact.parent_compute.what),
            },
            Related {
                span: fact.child_compute.span,
                message: format!(
                    "the child waits here for threads it does not have: {}",
                    fact.child_compute.what
                ),
            },
        ],
        help: "call `torch.set_num_threads(1)` first in the child (a pool `initializer`), or start it by spawn (`multiprocessing.get_context(\"spawn\")`)".into(),
        fix: spawn_fix(fact, sources),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{span, Text};
    use gpulint_core::effect::CudaUse;

    #[test]
    fn the_fork_is_primary_with_both_operations_related() {
        let op = |s, e| CudaUse {
            span: span(s, e),
            what: "`@` computes".into(),
        };
        let facts = Facts {
            threadpool_forks: vec![ThreadpoolFact {
                span: span(40, 50),
                launcher: &crate::testing::POOL,
                parent_compute: op(0, 5),
                child_compute: op(60, 65),
                child_code: "`work`".into(),
                at_module_scope: false,
                made_by: None,
            }],
            ..Facts::default()
        };
        let [d] = check(&facts, &Text("")).try_into().unwrap();
        assert_eq!((d.span, d.severity), (span(40, 50), Severity::Warning));
        let related: Vec<_> = d.related.iter().map(|r| r.span).collect();
        assert_eq!(related, [span(0, 5), span(60, 65)]);
        assert!(d.message.contains("`work`"), "{}", d.message);
    }
}
