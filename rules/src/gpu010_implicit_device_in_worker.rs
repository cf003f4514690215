//! GPU010 implicit-device-in-worker: a worker with a GPU of its own also uses the current device,
//! which it never bound: GPU 0.

use gpulint_analyses::implicit_device::ImplicitDeviceFact;
use gpulint_analyses::thread_device::ThreadDeviceFact;
use gpulint_analyses::Facts;

use crate::{Diagnostic, FixAvailability, Language, Related, Rule, Severity, Sources};

pub static RULE: Rule = Rule {
    code: "GPU010",
    name: "implicit-device-in-worker",
    severity: Severity::Error,
    summary: "A worker that uses a GPU of its own also puts tensors on the current device, which it (or its thread) never set: GPU 0 in every worker",
    docs: DOCS,
    check: Some(check),
    // A module-level object on the current device is a pinned global: GPU002 says it better.
    replaced_by: &["GPU002"],
    language: Some(Language::Python),
    fix: FixAvailability::None,
};

const DOCS: &str = r#"## What it does
Finds a worker process (a child started per GPU, a rank of a job) that places some objects on a
device of its own (`.to(f"cuda:{rank}")`, `torch.device("cuda", gpu)`, `.cuda(rank)`) and others on
the *current* device (`.cuda()`, `device="cuda"`, `torch.cuda.FloatTensor(...)`), without ever
making its own device the current one (`torch.cuda.set_device`, `with torch.cuda.device(...)`, or a
`CUDA_VISIBLE_DEVICES` narrowed before CUDA starts).

It also finds a thread (`threading.Thread(target=...)`, or a subclass's `run`) started by a process
that set a GPU of its own (`torch.cuda.set_device(local_rank)`), when the thread does CUDA work on
the *current* device without setting it there: `torch.cuda.synchronize()`, `empty_cache()`,
`current_stream()`, `x.pin_memory()`, iterating a `DataLoader(pin_memory=True)`, `.cuda()`,
`device="cuda"`.

## Why is this bad?
Naming a device in `.to(...)` does not change the current device, which stays GPU 0 in every
process until it is set. Each worker's bare `"cuda"` objects therefore land on GPU 0: every worker
creates a context there (hundreds of MB each), GPU 0 runs out of memory first, and in worker 3 a
model on `cuda:3` meets an input on `cuda:0` ("Expected all tensors to be on the same device").

The current device is also per thread: `torch.cuda.set_device` in a rank's main thread does not
reach a thread it starts, whose current device is GPU 0. The thread's work creates a context on
GPU 0 in every rank (memory lost there, and a hang where it waits on the wrong device), and pinned
batches are pinned for GPU 0 instead of the rank's GPU.

## When it is not a bug
- The worker sets its device first (`torch.cuda.set_device(rank)`): `"cuda"` then means its GPU.
- The parent or the worker narrowed `CUDA_VISIBLE_DEVICES` to one GPU before CUDA started.
- Only one process runs: a script, not a worker.
- A rank with an NCCL process group: GPU003 reports a missing binding there.
- DataLoader workers: they get no GPU of their own.
- The only device named besides `"cuda"` is read back from an existing tensor or model (`t.device`,
  `self.model.device`, `device or t.device`), or is a device kind (`mesh.device_type`): that
  chooses no GPU.
- The GPU of its own and the bare placement are on different branches (`if distributed:` places
  on the current device, `else:` on a configured GPU): no path does both.
- The thread sets its device itself (`torch.cuda.set_device(device)` first in the thread).
- The thread names the device in each call (`torch.cuda.synchronize(device)`,
  `torch.cuda.current_stream(device)`, `with torch.cuda.device(device):`, `device=device`).
- The process never set a device (a one-GPU script): GPU 0 is the device it means, in every thread.
- The thread does no CUDA work (it writes files, logs host values).
- The thread ran before the process set its device: the process was still on GPU 0 then.

gpulint reports it where the worker's own GPU is named in the same file as the bare placement.
A thread is reported at its first work on the current device, with where the process set its GPU
and where the thread started. Threads are followed where `threading.Thread` (or a subclass) is
started; a `ThreadPoolExecutor`'s threads are not followed yet.

## Example
```python
import torch
import torch.multiprocessing as mp

def work(rank):
    model = torch.nn.Linear(4, 2).to(f"cuda:{rank}")
    batch = torch.randn(8, 4).cuda()          # cuda:0 in every worker
    model(batch)

if __name__ == "__main__":
    mp.spawn(work, nprocs=torch.cuda.device_count())
```

Use instead:
```python
def work(rank):
    torch.cuda.set_device(rank)               # "cuda" is now this worker's GPU
    model = torch.nn.Linear(4, 2).cuda()
    batch = torch.randn(8, 4).cuda()
    model(batch)
```

A thread of a rank:
```python
import os
import threading
import torch

def flush():
    torch.cuda.synchronize()                  # GPU 0: the thread's current device
    torch.cuda.empty_cache()

local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)
threading.Thread(target=flush).start()
```

Use instead:
```python
def flush(device):
    torch.cuda.set_device(device)             # the current device is per thread
    torch.cuda.synchronize()
    torch.cuda.empty_cache()

threading.Thread(target=flush, args=(local_rank,)).start()
```

## Fix
Call `torch.cuda.set_device(rank)` first thing in the worker, or pass the worker's device to every
placement (`device=f"cuda:{rank}"`, `.to(device)`). In a thread, call `torch.cuda.set_device` with
the process's device first in the thread (read it with `torch.cuda.current_device()` before
starting the thread, and pass it in).

gpulint offers no automatic fix: which value names the worker's GPU (`rank`, `local_rank`, an argument) is the program's own, and the binding belongs at the start of the worker, often another function than the placement.

## References
- GPU-0 pile-up reports in multi-GPU inference and training scripts where the model is moved to
  the rank's GPU and the inputs with a bare `.cuda()` (the pattern behind many "every process uses
  GPU 0" threads in the PyTorch forums and issue trackers).
"#;

fn check(facts: &Facts, _: &dyn Sources) -> Vec<Diagnostic> {
    let threads = facts.thread_devices.iter().map(thread_diagnostic);
    facts
        .implicit_devices
        .iter()
        .map(diagnostic)
        .chain(threads)
        .collect()
}

/// A thread of a process that bound its own GPU works on the thread's current device: GPU 0.
fn thread_diagnostic(fact: &ThreadDeviceFact) -> Diagnostic {
    Diagnostic {
        code: RULE.code,
        name: RULE.name,
        severity: RULE.severity,
        message: "This runs in a thread on the current CUDA device, which is per thread: the process set its own GPU, but this thread never did, so it works on GPU 0".into(),
        span: fact.span,
        label: format!("on GPU 0 in this thread: {}", fact.what),
        related: vec![
            Related {
                span: fact.binding,
                message: "the process sets its GPU here; a thread does not inherit it".into(),
            },
            Related {
                span: fact.thread,
                message: "the thread starts here".into(),
            },
        ],
        help: "call `torch.cuda.set_device(device)` first in the thread (pass it the device the process set), or name the device in the call (`with torch.cuda.device(device):`)".into(),
        fix: None,
    }
}

fn diagnostic(fact: &ImplicitDeviceFact) -> Diagnostic {
    Diagnostic {
        code: RULE.code,
        name: RULE.name,
        severity: RULE.severity,
        message: "This worker uses a GPU of its own, but places this on the current device, which it never set: GPU 0 in every worker".into(),
        span: fact.span,
        label: format!("on GPU 0: {}", fact.what),
        related: vec![Related {
            span: fact.chosen,
            message: "the worker's own GPU is named here; it does not change the current device"
                .into(),
        }],
        help: "call `torch.cuda.set_device(rank)` first in the worker, or pass the worker's device here".into(),
        fix: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{span, Text};
    use gpulint_core::source::Span;

    #[test]
    fn the_implicit_placement_is_primary_and_the_choice_related() {
        let facts = Facts {
            implicit_devices: vec![ImplicitDeviceFact {
                span: span(20, 30),
                what: "`cuda()`".into(),
                chosen: span(0, 5),
            }],
            ..Facts::default()
        };
        let [d] = check(&facts, &Text("")).try_into().unwrap();
        assert_eq!((d.span, d.related[0].span), (span(20, 30), span(0, 5)));
        assert_eq!(d.severity, Severity::Error);
    }

    #[test]
    fn a_thread_finding_cites_the_binding_and_the_thread() {
        let facts = Facts {
            thread_devices: vec![ThreadDeviceFact {
                span: span(40, 50),
                what: "`synchronize()` works on the current device".into(),
                thread: span(20, 30),
                binding: span(0, 5),
            }],
            ..Facts::default()
        };
        let [d] = check(&facts, &Text("")).try_into().unwrap();
        let related: Vec<Span> = d.related.iter().map(|r| r.span).collect();
        assert_eq!(d.span, span(40, 50));
        assert_eq!(related, [span(0, 5), span(20, 30)]);
        assert!(d.message.contains("per thread"));
    }
}
