//! GPU015 set-device-after-process-group: the order-only case of GPU003, which works today.

use gpulint_analyses::process_group::{GroupVerdict, ProcessGroupFact};
use gpulint_analyses::Facts;

use crate::{
    Applicability, Diagnostic, Fix, FixAvailability, Language, Related, Rule, Severity, Sources,
};

pub static RULE: Rule = Rule {
    code: "GPU015",
    name: "set-device-after-process-group",
    severity: Severity::Info,
    summary:
        "The rank binds its GPU right after creating the NCCL process group: fine today, fragile",
    docs: DOCS,
    check: Some(check),
    replaced_by: &["GPU003"],
    language: Some(Language::Python),
    fix: FixAvailability::Sometimes,
};

const DOCS: &str = r#"## What it does
Finds a rank that creates its NCCL process group (`init_process_group` with `nccl`, or no backend with
CUDA in use) and binds its device (`torch.cuda.set_device(local_rank)`, `set_device_index`, a launcher's
state object) only afterwards, with nothing that touches a GPU in between.

Severity: **info**. The finding is shown and counted, but it does not make the run fail unless
`--fail-on info` is given (or `fail-on = "info"` in the configuration).

## Why is this bad?
It is not broken today: NCCL creates a communicator lazily, at the first collective, and by then the
rank has bound its device. Real projects ship this order, and their accepted fixes keep it. It is
fragile: the first line anyone adds between the two calls — a `barrier()`, a tensor created on
`"cuda"`, `device_id=` passed to `init_process_group` for an eagerly created communicator — runs on
GPU 0 in every rank, which is GPU003 (hangs, "Duplicate GPU detected", extra contexts on GPU 0).

## When it is not a bug
- The device is bound before `init_process_group`, or `device_id=` names it on the call.
- The backend is `gloo` or `mpi` with CPU tensors.
- The launcher narrowed visibility so that each rank sees one GPU, or `world_size=1`.
- Something runs on the implicit device between the two calls, or the device is never bound: that is
  GPU003, an error, not this.

## Example
```python
import os
import torch
import torch.distributed as dist

def setup():
    dist.init_process_group("nccl")
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
```

Use instead:
```python
def setup():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
```

## Fix
Move the `set_device` call above `init_process_group`.

## Fix safety
`gpulint check --fix` moves it when the call is a statement of its own in the same block as the
group and nothing between the two mentions a name it reads. The fix is safe: nothing between them
touches the GPU (otherwise the finding is GPU003), so the program does the same thing, in the order
that stays correct when code is added.

## References
- Reports of ranks hanging or sharing GPU 0 after a barrier was added between the two calls
  (pytorch/pytorch#124714, NVIDIA/nccl#541).
- Projects that ship the order and work (allenai/OLMo, deepmd-kit): why this is info, not an error.
"#;

fn check(facts: &Facts, sources: &dyn Sources) -> Vec<Diagnostic> {
    facts
        .process_groups
        .iter()
        .filter(|g| g.verdict() == Some(GroupVerdict::OrderOnly))
        .filter_map(|g| diagnostic(g, sources))
        .collect()
}

fn diagnostic(group: &ProcessGroupFact, sources: &dyn Sources) -> Option<Diagnostic> {
    let late = group.late_bind?;
    Some(Diagnostic {
        code: RULE.code,
        name: RULE.name,
        severity: RULE.severity,
        message: "The NCCL process group is created before this rank binds its device; it works only while nothing touches the GPU in between".into(),
        span: group.span,
        label: "created while the current device is still GPU 0 in every rank".into(),
        related: vec![Related {
            span: late,
            message: "the device is bound only here".into(),
        }],
        help: "call `torch.cuda.set_device(local_rank)` before `init_process_group`, and pass `device_id=torch.device(\"cuda\", local_rank)`".into(),
        fix: move_binding_first(group, late, sources),
    })
}

/// With nothing between the group and the binding that the binding reads, moving the binding above
/// the group keeps the program's meaning: a safe fix.
fn move_binding_first(
    group: &ProcessGroupFact,
    late: gpulint_core::source::Span,
    sources: &dyn Sources,
) -> Option<Fix> {
    if late.file != group.span.file {
        return None;
    }
    let text = sources.text(group.span.file);
    let edits = crate::fix::move_statement_before(text, late, group.span)?;
    Some(Fix {
        applicability: Applicability::Safe,
        message: "bind the device before creating the process group".into(),
        edits,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{group_facts, Text, GROUP_THEN_BIND};
    use gpulint_core::effect::Backend;

    fn findings(early: bool, late: bool) -> Vec<Diagnostic> {
        check(
            &group_facts(early, late, Backend::Nccl, true),
            &Text(GROUP_THEN_BIND),
        )
    }

    #[test]
    fn order_alone_is_info_with_a_safe_fix_that_moves_the_binding_up() {
        let [d] = findings(false, true).try_into().unwrap();
        assert_eq!(d.severity, Severity::Info);
        let fix = d.fix.expect("a safe fix");
        assert_eq!(fix.applicability, Applicability::Safe);
        let text = crate::fix::apply(GROUP_THEN_BIND, &fix.edits.iter().collect::<Vec<_>>()).0;
        assert_eq!(
            text,
            "torch.cuda.set_device(rank)\ndist.init_process_group(\"nccl\")\n"
        );
    }

    #[test]
    fn what_fails_is_gpu003s_not_this_rules() {
        for (early, late) in [(true, true), (true, false), (false, false)] {
            assert!(
                findings(early, late).is_empty(),
                "early {early}, late {late}"
            );
        }
    }
}
