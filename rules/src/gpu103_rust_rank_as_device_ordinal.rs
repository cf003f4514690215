//! GPU103 rust-rank-as-device-ordinal: GPU008's facts, for Rust code. The ordinal is primary.

use gpulint_analyses::Facts;

use crate::{Diagnostic, FixAvailability, Language, Rule, Severity, Sources};

pub static RULE: Rule = Rule {
    code: "GPU103",
    name: "rust-rank-as-device-ordinal",
    severity: Severity::Warning,
    summary: "Rust: a device ordinal comes from the global rank (`RANK`): on every node but the first it is not a GPU of that machine",
    docs: DOCS,
    check: Some(check),
    replaced_by: &[],
    language: Some(Language::Rust),
    fix: FixAvailability::None,
};

const DOCS: &str = r#"## What it does
Finds the global rank — `std::env::var("RANK")`, `SLURM_PROCID`, `OMPI_COMM_WORLD_RANK`,
`PMI_RANK`, parsed to a number — passed as a device ordinal: `CudaContext::new(rank)`,
`CudaDevice::new(rank)`, `Device::new_cuda(rank)`, `tch::Device::Cuda(rank)`,
`Device::get_device(rank)`.

## Why is this bad?
In a job launched with one process per GPU across several machines, the global rank numbers every
process of the job: the second node of two 8-GPU nodes runs ranks 8 to 15, but its GPUs are 0 to 7.
Those processes fail with `CUDA_ERROR_INVALID_DEVICE` (or share a GPU where the number happens to
exist). It works on one node, where the global and local ranks coincide.

## When it is not a bug
- The ordinal is the rank on the node: `LOCAL_RANK`, `SLURM_LOCALID`,
  `OMPI_COMM_WORLD_LOCAL_RANK`.
- The rank is reduced to this machine's GPUs: `rank % CudaContext::device_count()? as usize`.
- The rank is used for what is unique across the job (a shard, who writes logs), not a device.

## Example
```rust
use cudarc::driver::CudaContext;

fn main() {
    let rank: usize = std::env::var("RANK").unwrap().parse().unwrap();
    let ctx = CudaContext::new(rank).unwrap();
}
```

Use instead:
```rust
fn main() {
    let local_rank: usize = std::env::var("LOCAL_RANK").unwrap().parse().unwrap();
    let ctx = CudaContext::new(local_rank).unwrap();
}
```

## Fix
Take the device from the local rank, and keep the global rank for what is unique across the job.

gpulint offers no automatic fix: the ordinal's type and error handling (`usize` or `i32`, `?` or `unwrap`) are the program's own, so no one expression replaces it in every call.

## References
- The torchrun documentation, which sets `RANK`, `LOCAL_RANK` and `WORLD_SIZE` for each process.
- The Python counterpart, GPU008 (`global-rank-as-device`).
"#;

fn check(facts: &Facts, _: &dyn Sources) -> Vec<Diagnostic> {
    facts
        .global_rank_devices
        .iter()
        .map(|fact| Diagnostic {
            code: RULE.code,
            name: RULE.name,
            severity: RULE.severity,
            message: "The global rank is used as a device ordinal: on every node but the first it names a GPU that machine does not have".into(),
            span: fact.span,
            label: "the rank across all nodes, not on this one".into(),
            related: Vec::new(),
            help: "use the local rank (`LOCAL_RANK`), or the rank modulo this machine's device count".into(),
            fix: None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{span, Text};
    use gpulint_analyses::global_rank::GlobalRankFact;

    #[test]
    fn the_ordinal_is_primary() {
        let mut facts = Facts::default();
        facts.global_rank_devices.found = vec![GlobalRankFact::new(span(4, 8), None)];
        let [d] = check(&facts, &Text("")).try_into().unwrap();
        assert_eq!((d.span, d.severity), (span(4, 8), Severity::Warning));
    }
}
