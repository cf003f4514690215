//! GPU008 global-rank-as-device: a device ordinal taken from the rank across all nodes.

use gpulint_analyses::global_rank::GlobalRankFact;
use gpulint_analyses::Facts;

use crate::{
    Applicability, Diagnostic, Fix, FixAvailability, Language, Related, Rule, Severity, Sources,
};

pub static RULE: Rule = Rule {
    code: "GPU008",
    name: "global-rank-as-device",
    severity: Severity::Warning,
    summary: "A device index comes from the global rank (`RANK`, `get_rank()`): on every node but the first it is not a GPU of that machine",
    docs: DOCS,
    check: Some(check),
    replaced_by: &[],
    language: Some(Language::Python),
    fix: FixAvailability::Sometimes,
};

const DOCS: &str = r#"## What it does
Finds the global rank — `os.environ["RANK"]`, `SLURM_PROCID`, `torch.distributed.get_rank()`,
accelerate's `process_index` (of an `Accelerator` or a `PartialState`), and that rank modulo the
size of the job or of a parallel group (`rank % world_size`, `rank % tp_size`) — used as a device
index: `torch.cuda.set_device(rank)`, `.to(rank)`, `.cuda(rank)`,
`f"cuda:{rank}"`, `"cuda:%d" % rank`, `torch.device("cuda", rank)`, `device=rank`, and the devices handed to a
collective or to `DistributedDataParallel` (`device_ids=[rank]`, `output_device=rank`).

## Why is this bad?
The global rank numbers the processes of the whole job: on a job of two 8-GPU nodes, the second
node's processes have ranks 8 to 15, but that machine only has GPUs 0 to 7. They fail with
"invalid device ordinal" (or, where the index happens to exist, share a GPU with another rank).
The code works on one node, where global and local ranks coincide, and breaks when the job is
scaled out.

## When it is not a bug
- The index is the rank on the node: `LOCAL_RANK`, `SLURM_LOCALID`,
  `torch.distributed.get_node_local_rank()`, or the index `mp.spawn` passes to its function.
- The index is accelerate's `local_process_index`, its rank on the node.
- The global rank is reduced to this machine: `rank % torch.cuda.device_count()`, or modulo a
  count of the node's GPUs or processes (`LOCAL_WORLD_SIZE`, a `gpus_per_node` or
  `nproc_per_node` setting). A number that says neither (a literal, a plain `n`) is taken as the
  user's node size and not reported; the size of a parallel group is not one (a tensor-parallel
  group of 16 spans two 8-GPU machines).
- The job is launched on one machine where gpulint sees it, so its global ranks are its local
  ranks: torchrun or `python -m torch.distributed.run` without `--nnodes` above 1 (or with
  `--standalone`), run by the program itself through `subprocess`.
- The processes are started by `mp.spawn` or `start_processes`, which start them all on this
  machine.
- The rendezvous address `MASTER_ADDR` is the loopback (`localhost`, `127.0.0.1`), written to
  `os.environ` or in an environment handed to the child.
- The project says how it launches the file, on one machine: a shell script in the file's folder or
  one above it runs it with torchrun and no `--nnodes` above 1, or the module's docstring has such a
  usage line. (A script that names `--nnodes=2` makes the finding point at it.)
- The code is a test suite's (`test_*.py`, `*_test.py`, `conftest.py`, or a module under a `tests/`
  or `test/` folder of the project), or is run by one: a suite's harness launches its ranks on the
  machine that runs the tests.

Where gpulint sees no launch (a library function, a script started by a launcher outside the
project), the finding says it holds when the job runs on more than one node; where it sees a launch
on several nodes (`--nnodes=2`), it points at it.

## Example
```python
import os
import torch

rank = int(os.environ["RANK"])
torch.cuda.set_device(rank)
```

Use instead:
```python
local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
```

## Fix
Use the local rank (`LOCAL_RANK`; `get_node_local_rank()` on recent PyTorch) for devices, and
keep the global rank for what is unique across the job (which shard of data, who writes logs).

## Fix safety
`gpulint check --fix --unsafe-fixes` replaces the index with a read of the variable the same
launcher sets to the rank on the node: `int(os.environ["LOCAL_RANK"])` for `RANK` and `get_rank()`,
`int(os.environ["SLURM_LOCALID"])` for `SLURM_PROCID`, spelled as the file names the environment
(`os.environ`, or `environ` imported from `os`). The fix is unsafe: under a launcher that sets the
global rank but not that variable, the read fails. There is no fix where the file does not name
the environment, or for a rank with no such variable (Horovod's `hvd.rank()`: use
`hvd.local_rank()`).

## References
- "invalid device ordinal" reports from multi-node runs of scripts that call
  `torch.cuda.set_device(dist.get_rank())` or read `RANK` for the device, and the PyTorch
  torchrun documentation, which distinguishes `LOCAL_RANK` from `RANK`.
"#;

fn check(facts: &Facts, _: &dyn Sources) -> Vec<Diagnostic> {
    facts.global_rank_devices.iter().map(diagnostic).collect()
}

/// The index read from the variable the launcher sets to the rank on this node. Unsafe: it
/// assumes that launcher (`LOCAL_RANK` is missing under others, and the read then fails).
fn local_rank_fix(fact: &GlobalRankFact) -> Option<Fix> {
    let local = fact.local.as_ref()?;
    let read = format!("int({}[\"{}\"])", local.environ, local.variable);
    Some(Fix {
        applicability: Applicability::Unsafe,
        message: format!(
            "use `{read}`: the launcher that sets the global rank here sets `{}` too, but another may not (the read then fails)",
            local.variable
        ),
        edits: vec![crate::fix::replace(fact.span, read)],
    })
}

fn diagnostic(fact: &GlobalRankFact) -> Diagnostic {
    let (message, related) = match fact.several_nodes {
        Some(span) => (
            "The global rank is used as a device index, and this job runs on several nodes: on every node but the first it names a GPU that machine does not have",
            vec![Related {
                span,
                message: "launched on more than one node here".into(),
            }],
        ),
        None => (
            "The global rank is used as a device index: when this job runs on more than one node, it names a GPU that machine does not have on every node but the first one",
            Vec::new(),
        ),
    };
    Diagnostic {
        code: RULE.code,
        name: RULE.name,
        severity: RULE.severity,
        message: message.into(),
        span: fact.span,
        label: "the rank across all nodes, not on this one".into(),
        related,
        help: "use the local rank (`LOCAL_RANK`, `torch.distributed.get_node_local_rank()`, accelerate's `local_process_index`), or `rank % torch.cuda.device_count()`".into(),
        fix: local_rank_fix(fact),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{span, Text};

    #[test]
    fn the_index_is_primary() {
        let mut facts = Facts::default();
        facts.global_rank_devices.found = vec![
            GlobalRankFact::new(span(4, 8), None),
            GlobalRankFact::new(span(9, 12), Some(span(0, 2))),
        ];
        let [d, e] = check(&facts, &Text("")).try_into().unwrap();
        assert_eq!((d.span, d.severity), (span(4, 8), Severity::Warning));
        assert!(d
            .message
            .contains("when this job runs on more than one node"));
        assert_eq!(e.related[0].span, span(0, 2));
    }
}
