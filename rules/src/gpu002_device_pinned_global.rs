//! GPU002 device-pinned-global.

use gpulint_analyses::Facts;

use crate::{Diagnostic, FixAvailability, Language, Related, Rule, Severity, Sources};

pub static RULE: Rule = Rule {
    code: "GPU002",
    name: "device-pinned-global",
    severity: Severity::Error,
    summary:
        "A global model or tensor pinned to one GPU is used by workers that each chose their own",
    docs: DOCS,
    check: Some(check),
    replaced_by: &[],
    language: Some(Language::Python),
    fix: FixAvailability::None,
};

const DOCS: &str = r#"## What it does
Finds a module-level or cached global (a module variable, a `global` assignment in a lazy loader, a
class attribute, an `lru_cache` result) that holds a model or tensor placed on one fixed device —
`"cuda:0"`, `torch.device("cuda", 0)`, a constant that evaluates to one, or `"cuda"`/`.cuda()`
evaluated before the worker chose its device — when per-worker code that selects a device of its own
(`set_device(rank)`, `f"cuda:{rank}"`, `.to(local_rank)`) uses it.

## Why is this bad?
Each worker meant to run on its own GPU, but the global lives on the device it was pinned to. Under
fork the global is inherited (and unusable, see GPU001); under spawn, and in every torchrun rank, each
process re-creates it at import on that same device before choosing its own. The result is "Expected
all tensors to be on the same device, but found at least two devices, cuda:0 and cuda:1", or every
worker's copy piled onto GPU 0 until it runs out of memory while the other GPUs sit idle.

## When it is not a bug
- The global stays on the CPU and each worker copies it to its own device
  (`MODEL.to(f"cuda:{rank}")`).
- A lazy loader places it on the current device after the worker has called `set_device`.
- Nothing selects a per-worker device: a single-process script may keep its model on `cuda:0`.

## Example
```python
import torch
import torch.multiprocessing as mp

ENCODER = build_encoder().to("cuda:0")     # every process loads it onto GPU 0

def worker(rank, shards):
    torch.cuda.set_device(rank)
    for x in shards[rank]:
        ENCODER(x.cuda())                  # cuda:0 weights, cuda:rank inputs

if __name__ == "__main__":
    mp.spawn(worker, args=(shards,), nprocs=torch.cuda.device_count())
```

Use instead:
```python
ENCODER = build_encoder()                  # stays on the CPU at import

def worker(rank, shards):
    torch.cuda.set_device(rank)
    encoder = ENCODER.to(f"cuda:{rank}")   # one copy per worker, on its own GPU
```

## Fix
Keep globals on the CPU (or load them lazily inside the worker, after it bound its device) and move
them to the worker's device there.

gpulint offers no automatic fix: where the global should live (on the CPU, or loaded in each worker) is a choice the code does not state.

## References
- SeedVR2 video upscaler, issue 30 (every spawned worker re-created the model on GPU 0).
- discuss.pytorch.org/t/multprocessing-inference-uses-more-memory-of-gpu0/133162 (a model pickled
  into spawned workers brings a GPU 0 context with it).
- PyTorch, "Multiprocessing best practices" (spawned children re-run the module's top level).
"#;

fn check(facts: &Facts, _: &dyn Sources) -> Vec<Diagnostic> {
    facts
        .pinned_globals
        .iter()
        .map(|g| Diagnostic {
            code: RULE.code,
            name: RULE.name,
            severity: RULE.severity,
            message: format!(
                "`{}` is pinned to {}, but workers that choose their own device use it",
                g.name, g.device
            ),
            span: g.binding,
            label: format!("`{}` is placed on {} here", g.name, g.device),
            related: vec![
                Related { span: g.choice, message: "the worker chooses its own device here".into() },
                Related { span: g.use_site, message: format!("and uses `{}` here", g.name) },
            ],
            help: format!(
                "keep `{}` on the CPU and move it to the worker's device inside the worker, or load it there after `set_device`",
                g.name
            ),
            fix: None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpulint_analyses::pinned::PinnedGlobalFact;
    use gpulint_core::source::{FileId, Span};

    struct NoText;
    impl Sources for NoText {
        fn text(&self, _: FileId) -> &str {
            ""
        }
    }

    #[test]
    fn the_binding_is_primary_and_the_choice_and_use_are_related() {
        let at = |start| Span::new(FileId(0), start, start + 4);
        let facts = Facts {
            pinned_globals: vec![PinnedGlobalFact {
                binding: at(0),
                name: "MODEL".into(),
                device: "cuda:0".into(),
                choice: at(40),
                use_site: at(60),
            }],
            ..Facts::default()
        };
        let [d] = check(&facts, &NoText).try_into().unwrap();
        assert_eq!(d.span, at(0));
        assert_eq!(
            d.message,
            "`MODEL` is pinned to cuda:0, but workers that choose their own device use it"
        );
        let related: Vec<Span> = d.related.iter().map(|r| r.span).collect();
        assert_eq!(related, [at(40), at(60)]);
        assert!(d.fix.is_none());
    }

    #[test]
    fn no_fact_no_finding() {
        assert!(check(&Facts::default(), &NoText).is_empty());
    }
}
