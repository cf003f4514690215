//! GPU009 load-without-map-location-per-rank: every worker restores a checkpoint onto the GPU it
//! was saved from.

use gpulint_analyses::unmapped_load::UnmappedLoadFact;
use gpulint_analyses::Facts;

use crate::{
    Applicability, Diagnostic, Fix, FixAvailability, Language, Related, Rule, Severity, Sources,
};

pub static RULE: Rule = Rule {
    code: "GPU009",
    name: "load-without-map-location-per-rank",
    severity: Severity::Warning,
    summary: "A checkpoint is loaded without `map_location` in code that runs once per GPU: every worker restores it onto the GPU it was saved from, usually GPU 0",
    docs: DOCS,
    check: Some(check),
    replaced_by: &[],
    language: Some(Language::Python),
    fix: FixAvailability::Sometimes,
};

const DOCS: &str = r#"## What it does
Finds `torch.load`, `torch.jit.load` and Lightning's `load_from_checkpoint` called without
`map_location` (or with `map_location=None`) in a process that is one of several GPU workers: a rank
of a distributed job (it picks a device of its own, say from `LOCAL_RANK`, or joins an NCCL process
group, in the same file as the load), or a child started to run on a GPU (`mp.spawn`, a `Process`
per GPU).

## Why is this bad?
A checkpoint remembers the device each tensor was saved from, and a load without `map_location`
puts it back there. Checkpoints are usually written by rank 0 from `cuda:0`, so every rank
materialises its copy on GPU 0, whatever device it was given with `set_device`: GPU 0 carries
several copies of the model (out of memory there, or a slow start-up that looks like a hang) while
the other GPUs idle, and a model restored on GPU 0 in rank 3 meets inputs on GPU 3. Lightning's
`load_from_checkpoint` keeps that behaviour when CUDA is available and then moves the module to
the device of its first tensor.

## When it is not a bug
- The process narrowed `CUDA_VISIBLE_DEVICES` to its own GPU before loading: its `cuda:0` is its
  own GPU.
- One process: a script that runs once, a pool or loader worker that does not pick a GPU of its own,
  a single `Process` the parent starts once (not in a loop or a comprehension) and that does not
  pick a GPU of its own: one inference or serving worker.
- One rank loads: the load sits under a test that compares the rank with a constant
  (`if dist.get_rank() == 0:`, `if hvd.rank() == 0:`, `if local_rank in (-1, 0):`, or the `else`
  of `if rank != 0:`), so the other ranks never run it.
- The same file saves that checkpoint (the same path, or the same name holding it) only from host
  values: a model built on the CPU or its `state_dict()`, numbers, strings, lists of them, a
  dict built of `.cpu()` copies (`{name: p.cpu() for name, p in ...}`).
  `torch.load` gives host tensors back for host tensors, and plain values have no device.
- The load is in another file than the one that picks the rank's device, creates its GPU process
  group or starts the per-GPU children: a library's loaders, far from where the job is set up,
  read files whose devices the library chose (per-rank shards, CPU state).

A checkpoint saved from CPU tensors by another program is still reported: gpulint cannot see the
file, and `map_location="cpu"` costs nothing and says so. A project that sets up its ranks in one
module and loads in another is missed.

## Example
```python
import os
import torch

def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    torch.distributed.init_process_group("nccl")
    state = torch.load("snapshot.pt")      # restored on cuda:0 in every rank
```

Use instead:
```python
    state = torch.load("snapshot.pt", map_location=f"cuda:{local_rank}")
    # or map_location="cpu", then model.load_state_dict(state) and model.to(local_rank)
```

## Fix
Pass `map_location`: the worker's own device (`f"cuda:{local_rank}"`, a `torch.device`) or `"cpu"`
and move the model afterwards.

## Fix safety
`gpulint check --fix --unsafe-fixes` passes `map_location="cpu"` (or writes `"cpu"` in place of the
`None` the call passes). The fix is unsafe: state copied into a model with `load_state_dict` still
lands on the model's device, but tensors used as loaded, a TorchScript module or a Lightning model
stay on the CPU until moved (`.to(device)`).

## References
- The PyTorch DDP tutorial loaded its snapshot without `map_location` until it was fixed to map to
  the rank's GPU (pytorch/examples#1078).
- Reports of hundreds of MB per rank lingering on GPU 0 after resuming (pytorch/pytorch#23138,
  NVIDIA/apex#222), out of memory on GPU 0 (open-mmlab/mmengine#665), and a start-up hang of an
  8-rank job loading a Lightning checkpoint (mir-group/nequip#613).
"#;

fn check(facts: &Facts, sources: &dyn Sources) -> Vec<Diagnostic> {
    facts
        .unmapped_loads
        .iter()
        .map(|f| diagnostic(f, sources))
        .collect()
}

/// Loads onto the host (in place of a `None` the call passes). Unsafe: what the code copies into a
/// model (`load_state_dict`) still lands on the model's device, but a tensor or module it uses as
/// loaded is now on the CPU.
fn map_to_host(fact: &UnmappedLoadFact, sources: &dyn Sources) -> Option<Fix> {
    let argument = "map_location=\"cpu\"";
    let edit = match fact.none_given {
        Some(none) => crate::fix::replace(none, "\"cpu\""),
        None => crate::fix::add_keyword(sources.text(fact.span.file), fact.span, argument)?,
    };
    Some(Fix {
        applicability: Applicability::Unsafe,
        message: format!(
            "load onto the host (`{argument}`): what is copied into a model (`load_state_dict`) still lands on the model's device, but a tensor or module used as loaded stays on the CPU until moved (`.to(device)`)"
        ),
        edits: vec![edit],
    })
}

fn diagnostic(fact: &UnmappedLoadFact, sources: &dyn Sources) -> Diagnostic {
    let related = fact
        .worker_sign
        .filter(|s| *s != fact.span)
        .map(|span| Related {
            span,
            message: "this process is one worker of several: it has a GPU of its own".into(),
        })
        .into_iter()
        .collect();
    Diagnostic {
        code: RULE.code,
        name: RULE.name,
        severity: RULE.severity,
        message: format!(
            "`{}` without `map_location` runs once per GPU: every worker restores the checkpoint onto the GPU it was saved from, usually GPU 0",
            fact.what
        ),
        span: fact.span,
        label: "restores each tensor to its saved device".into(),
        related,
        help: "pass `map_location`: the worker's own device (`f\"cuda:{local_rank}\"`) or `\"cpu\"`, then move the model".into(),
        fix: map_to_host(fact, sources),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{span, Text};

    #[test]
    fn the_load_is_primary_and_the_worker_sign_related() {
        let facts = Facts {
            unmapped_loads: vec![UnmappedLoadFact {
                span: span(20, 30),
                what: "torch.load".into(),
                worker_sign: Some(span(0, 5)),
                none_given: None,
            }],
            ..Facts::default()
        };
        let [d] = check(&facts, &Text("")).try_into().unwrap();
        assert_eq!(d.span, span(20, 30));
        assert_eq!(d.related.len(), 1);
        assert_eq!(d.severity, Severity::Warning);
    }
}
