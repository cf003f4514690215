//! GPU011 cuda-tensor-across-processes: a CUDA tensor or module sent to another process, by CUDA
//! IPC handle, where the receiver cannot use it.

use gpulint_analyses::ipc::{SendHazard, SentFact};
use gpulint_analyses::Facts;

use crate::{Diagnostic, FixAvailability, Language, Related, Rule, Severity, Sources};

pub static RULE: Rule = Rule {
    code: "GPU011",
    name: "cuda-tensor-across-processes",
    severity: Severity::Error,
    summary: "A CUDA tensor or module goes to another process through a manager's proxy, or from a child process that ends right after sending it: the receiver cannot open it",
    docs: DOCS,
    check: Some(check),
    replaced_by: &[],
    language: Some(Language::Python),
    fix: FixAvailability::None,
};

const DOCS: &str = r#"## What it does
Finds a PyTorch CUDA tensor or module (a model of a library built on PyTorch too) sent to another
process where the receiver cannot use it:
- through a proxy of a `multiprocessing` manager: `manager.Queue().put(t)`, `manager.dict()[key] = t`,
  `manager.list().append(t)`, an attribute of `manager.Namespace()`;
- through a queue or pipe (`put`, `put_nowait`, `send`) by a child process that ends afterwards: a
  `Process` target or a `torch.multiprocessing.spawn` function that sends the tensor and returns
  without waiting for any other process after it.

## Why is this bad?
`import torch` also imports `torch.multiprocessing`, which makes every `multiprocessing` queue, pipe
and manager connection pickle a CUDA tensor as a CUDA IPC handle: the receiver maps the sender's
device memory instead of getting a copy. A plain `multiprocessing.Queue` therefore behaves like
`torch.multiprocessing.Queue` here; what matters is which process holds the memory, and for how long.

- A manager is a server process of its own. It receives the tensor (opening the handle, which costs it
  a CUDA context) and must pickle it again for whoever reads the proxy, which PyTorch refuses for a
  tensor received from another process. The read fails: a `RemoteError` ("Unserializable message"),
  or "Attempted to send CUDA tensor received from another process". On torch 2.11 and an H100 a
  manager's queue and a manager's dict both failed so.
- The memory behind a handle belongs to the sender. PyTorch keeps it while the sender lives (dropping
  the sender's own reference after `put` is fine), and frees it when the sender exits. A child that
  returns right after `put` usually exits before its consumer opens the handle (`put` only passes the
  tensor to a background thread): the consumer fails with "CUDA error: invalid resource handle", and
  the sender logs "Producer process has been terminated before all shared CUDA tensors released".

## When it is not a bug
- The tensor goes to the CPU first (`t.cpu()`, `.numpy()`, `.item()`, `.tolist()`), and the consumer
  moves it to its own GPU.
- What is sent is a plain Python value computed from tensors (`t.max().item()`, `torch.equal(a, b)`,
  `type(t).__name__`): it pickles by value.
- The sender keeps running until the consumers are done: after sending it waits on an event, barrier
  or condition, joins a joinable queue or a process, receives from a queue or pipe, or sleeps (gpulint
  cannot tell whether for long enough, and stays silent).
- The main process sends: `multiprocessing` joins the children that are not daemons before the main
  process exits, so it outlives its consumers. Likewise a pool or executor worker that sends: it
  waits for its next task instead of exiting.
- A CUDA tensor or model passed as an argument to a spawned child (`Process(target=f, args=(t,))`,
  `torch.multiprocessing.spawn(f, args=(t,))`): it travels as a handle too, and works, since the
  parent outlives the child. Under fork, a CUDA object a child inherits is GPU001's.
- CuPy and JAX arrays: they pickle as host copies, and the receiver builds its own.

## Example
```python
import torch
import torch.multiprocessing as mp

def produce(queue):
    queue.put(torch.randn(1024, device="cuda"))   # and the process exits

if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    worker = ctx.Process(target=produce, args=(queue,))
    worker.start()
    worker.join()
    batch = queue.get()                            # invalid resource handle
```

Use instead:
```python
def produce(queue, done):
    queue.put(torch.randn(1024, device="cuda"))
    done.wait()                                    # the memory lives until the consumer is done

if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    queue, done = ctx.Queue(), ctx.Event()
    worker = ctx.Process(target=produce, args=(queue, done))
    worker.start()
    total = queue.get().sum().item()
    done.set()
    worker.join()
```

## Fix
Keep the sending process alive until every consumer has finished with its tensors (an `Event` the
consumer sets, or an answer on another queue), or send CPU tensors and move them to the GPU in the
consumer. Do not put CUDA tensors into a manager's proxies: use a queue instead, or send them to the
CPU first.

gpulint offers no automatic fix: how long the sender must stay alive, or whether the tensors can travel on the CPU, depends on the consumer.

## References
- PyTorch, "Multiprocessing best practices", on sharing CUDA tensors: the producer must keep running
  while consumers hold its tensors, and a received CUDA tensor must not be sent on.
- pytorch/pytorch#10375 (spawned producers that return right after `put`), #116055, zju3dv/Vox-Fusion#9.
- pytorch/pytorch#30401 and #134755 (CUDA tensors through `Manager().Queue()`).
"#;

fn check(facts: &Facts, _: &dyn Sources) -> Vec<Diagnostic> {
    facts.cuda_sent.iter().map(diagnostic).collect()
}

fn diagnostic(fact: &SentFact) -> Diagnostic {
    let what = &fact.what;
    let mut related = vec![Related {
        span: fact.object,
        message: "placed on CUDA here (it, or what it is computed from)".into(),
    }];
    let (message, label, help) = match &fact.hazard {
        SendHazard::ThroughManager => (
            format!(
                "A CUDA tensor or module goes through a manager's proxy ({what}): the manager process receives it by CUDA IPC handle and cannot pass it on, so reading it back fails"
            ),
            "sent to the manager process here".to_string(),
            "send `.cpu()` tensors through the manager, or use a queue (`torch.multiprocessing.Queue()`) for CUDA tensors".to_string(),
        ),
        SendHazard::SenderEnds { child, code } => {
            let code = code.as_deref().unwrap_or("its code");
            related.push(Related {
                span: *child,
                message: format!("the sending process is started here; it ends when {code} returns"),
            });
            (
                format!(
                    "This child process sends a CUDA tensor or module by CUDA IPC handle ({what}) and then ends without waiting for the receiver: the memory is freed with the sender, and the receiver fails with \"invalid resource handle\""
                ),
                "sent by a process that then exits without waiting".to_string(),
                "keep the sender alive until the receiver is done (wait on an `Event` the receiver sets), or send `.cpu()` tensors and move them to the GPU in the receiver".to_string(),
            )
        }
    };
    Diagnostic {
        code: RULE.code,
        name: RULE.name,
        severity: RULE.severity,
        message,
        span: fact.span,
        label,
        related,
        help,
        fix: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{span, Text};

    fn render(hazard: SendHazard) -> Diagnostic {
        let facts = Facts {
            cuda_sent: vec![SentFact {
                span: span(40, 50),
                object: span(0, 10),
                what: "`put`".into(),
                hazard,
            }],
            ..Facts::default()
        };
        let [d] = check(&facts, &Text("")).try_into().unwrap();
        d
    }

    #[test]
    fn a_manager_send_names_the_object() {
        let d = render(SendHazard::ThroughManager);
        assert_eq!(d.severity, Severity::Error);
        assert!(d.message.contains("manager"));
        assert_eq!(d.related.len(), 1);
    }

    #[test]
    fn a_sender_that_ends_points_at_its_start() {
        let d = render(SendHazard::SenderEnds {
            child: span(20, 30),
            code: Some("`produce`".into()),
        });
        assert!(d.message.contains("invalid resource handle"));
        assert_eq!(d.related[1].span, span(20, 30));
        assert!(d.related[1].message.contains("`produce` returns"));
    }
}
