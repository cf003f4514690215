//! GPU003 process-group-before-set-device.

use gpulint_analyses::process_group::{GroupVerdict, ProcessGroupFact};
use gpulint_analyses::Facts;
use gpulint_core::effect::Backend;

use crate::{
    Applicability, Diagnostic, Fix, FixAvailability, Language, Related, Rule, Severity, Sources,
};

pub static RULE: Rule = Rule {
    code: "GPU003",
    name: "process-group-before-set-device",
    severity: Severity::Error,
    summary: "An NCCL process group is created before the rank's GPU is bound",
    docs: DOCS,
    check: Some(check),
    replaced_by: &[],
    language: Some(Language::Python),
    fix: FixAvailability::Sometimes,
};

const DOCS: &str = r#"## What it does
Finds `torch.distributed.init_process_group` with the `nccl` backend (or no backend, with CUDA in use)
in a rank's code when the rank's device is not yet bound — by `torch.cuda.set_device(local_rank)`,
`torch.accelerator.set_device_index`, or `device_id=` on the call itself.

It reports what fails: a collective (`barrier`, `all_reduce`, `broadcast`, ...,
`DistributedDataParallel` without `device_ids`, torchrec's `DistributedModelParallel` without
`plan=`, whose planner broadcasts the sharding plan) or an allocation on the implicit device (`"cuda"`,
`.cuda()`) before the device is bound, or never bound at all. A `set_device` that follows
the group directly, with nothing in between, works today: that order is GPU015
(set-device-after-process-group, info).

## Why is this bad?
Until a rank binds its device, its current device is GPU 0 — in every rank. The first collective
creates the NCCL communicator there: "Duplicate GPU detected: rank 0 and rank 1 both on CUDA device",
a hang at the first barrier, or an extra ~500 MiB context per rank on GPU 0 ("using GPU 0 as device
used by this process is currently unknown").

## When it is not a bug
- `set_device(local_rank)` (or `set_device_index`) runs before `init_process_group`, or `device_id=` is
  passed to it.
- `set_device` follows `init_process_group` with nothing in between that touches a GPU: it works while
  NCCL creates communicators lazily (GPU015 notes it, as info).
- The backend is `gloo` (or `mpi`) with CPU tensors.
- The launcher narrowed visibility so each rank sees one GPU: `CUDA_VISIBLE_DEVICES` set to the local
  rank before CUDA starts, or a Ray task/actor with `num_gpus=1`.
- The group has one process (`world_size=1`, or `WORLD_SIZE=1` written by the process for the
  default `env://` method): GPU 0 is that rank's device.
- The only collectives before the binding run on a gloo subgroup (`new_group(backend="gloo")`).
- The function that creates the group is called from elsewhere in the project after the caller bound
  the device (gpulint follows the caller; a function with callers is judged on its own only when it
  binds the device itself, after the group). Bindings made for you count: accelerate's
  `PartialState`/`Accelerator`, `TrainingArguments`, a device abstraction's `set_device`
  (`get_accelerator().set_device(local_rank)`).
- The device is never bound, but nothing runs on the current device: every tensor and module names
  its GPU (`.to(f"cuda:{local_rank}")`, `DistributedDataParallel(device_ids=[local_rank])`), and the
  collectives run on those tensors.

## Example
```python
import os
import torch
import torch.distributed as dist

dist.init_process_group("nccl")
dist.barrier()                                   # every rank on GPU 0
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
```

Use instead:
```python
local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
dist.barrier()
```

## Fix
Bind the device first: `torch.cuda.set_device(local_rank)` before `init_process_group`, and pass
`device_id=torch.device("cuda", local_rank)` so the communicator is created eagerly on the right GPU.
Derive the index from `LOCAL_RANK`, not the global rank.

## Fix safety
`gpulint check --fix --unsafe-fixes` moves the late `set_device` statement above
`init_process_group` when both are statements of their own in the same block and nothing between
them mentions a name the binding reads. The fix is unsafe: what ran between the two (the collective
or allocation the finding cites) then runs on the rank's own GPU instead of GPU 0, which is the
point, but a change of what the program does. There is no fix when the device is never bound, the
binding is in another block or function, or it reads a value computed after the group; pass
`device_id=` yourself.

## References
- pytorch/pytorch#124714 (hang at the first barrier), #49481 (extra contexts on GPU 0), #118761.
- pytorch/examples DDP tutorial fixes (`set_device` moved before `init_process_group`).
- NVIDIA/nccl#541 ("Duplicate GPU detected").
"#;

fn check(facts: &Facts, sources: &dyn Sources) -> Vec<Diagnostic> {
    facts
        .process_groups
        .iter()
        .filter_map(|g| diagnostic(g, sources))
        .collect()
}

/// Moves the late binding above the group, where it is a statement of the same block and nothing
/// between computes what it reads. Unsafe: what runs between the two then runs on the rank's own
/// GPU instead of GPU 0, which is the point, but it is a change of what the program does.
fn bind_first(group: &ProcessGroupFact, sources: &dyn Sources) -> Option<Fix> {
    let late = group.late_bind?;
    if late.file != group.span.file {
        return None;
    }
    let text = sources.text(group.span.file);
    let edits = crate::fix::move_statement_before(text, late, group.span)?;
    Some(Fix {
        applicability: Applicability::Unsafe,
        message: "bind the device before creating the process group: what ran on GPU 0 between the two (the collective or allocation cited) then runs on this rank's GPU".into(),
        edits,
    })
}

fn diagnostic(group: &ProcessGroupFact, sources: &dyn Sources) -> Option<Diagnostic> {
    let verdict = group.verdict()?;
    let backend = match group.backend {
        Backend::Default => "process group (NCCL, since CUDA is in use)",
        Backend::Nccl | Backend::Cpu | Backend::Unknown => "NCCL process group",
    };
    let mut related = Vec::new();
    if let Some(early) = &group.early_use {
        related.push(Related {
            span: early.span,
            message: format!("before the device is bound: {}", early.what),
        });
    }
    if let Some(late) = group.late_bind {
        related.push(Related {
            span: late,
            message: "the device is bound only here".into(),
        });
    }
    if verdict != GroupVerdict::Fails {
        return None;
    }
    let message = match (&group.early_use, group.late_bind) {
        (Some(_), Some(_)) => format!("The {backend} is created, and used, before this rank's device is bound: every rank runs on GPU 0"),
        _ => format!("The {backend} is created and used, but this rank never binds its device: every rank runs on GPU 0"),
    };
    Some(Diagnostic {
        code: RULE.code,
        name: RULE.name,
        severity: RULE.severity,
        message,
        span: group.span,
        label: "created here while the current device is GPU 0 in every rank".into(),
        related,
        help: "call `torch.cuda.set_device(local_rank)` before `init_process_group`, and pass `device_id=torch.device(\"cuda\", local_rank)`".into(),
        fix: bind_first(group, sources),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{group_facts, Text, GROUP_THEN_BIND};

    fn group(early: bool, late: bool, backend: Backend, cuda_used: bool) -> Vec<Diagnostic> {
        check(
            &group_facts(early, late, backend, cuda_used),
            &Text(GROUP_THEN_BIND),
        )
    }

    #[test]
    fn order_alone_is_left_to_gpu015() {
        assert!(group(false, true, Backend::Nccl, true).is_empty());
    }

    #[test]
    fn an_early_use_is_an_error_whose_fix_moves_a_late_binding_up() {
        let [d] = group(true, true, Backend::Nccl, true).try_into().unwrap();
        assert_eq!(d.severity, Severity::Error);
        let fix = d.fix.expect("the binding is a statement of the same block");
        assert_eq!(fix.applicability, Applicability::Unsafe);
        assert_eq!(
            crate::fix::applied(GROUP_THEN_BIND, &fix.edits),
            "torch.cuda.set_device(rank)\ndist.init_process_group(\"nccl\")\n"
        );
        let [never_bound] = group(true, false, Backend::Nccl, true).try_into().unwrap();
        assert!(never_bound.fix.is_none());
    }

    #[test]
    fn never_bound_with_nothing_on_the_implicit_device_is_silent() {
        assert!(group(false, false, Backend::Nccl, true).is_empty());
    }

    #[test]
    fn the_default_backend_without_cuda_is_not_nccl() {
        assert!(group(true, false, Backend::Default, false).is_empty());
        assert_eq!(group(true, false, Backend::Default, true).len(), 1);
    }
}
