//! GPU006 unpicklable-spawn-callable: a lambda, a local function or class, a function defined
//! under the main guard, or an object holding a lock or an open file, handed to a child that must
//! unpickle it.

use gpulint_analyses::Facts;
use gpulint_core::effect::{Handed, StartMethod, Unserializable, UnserializableSent};

use crate::{Diagnostic, FixAvailability, Language, Related, Rule, Severity, Sources};

pub static RULE: Rule = Rule {
    code: "GPU006",
    name: "unpicklable-spawn-callable",
    severity: Severity::Error,
    summary: "A lambda, local function or class, or an object holding a lock or open file is handed to a child that receives it by pickle (spawn, forkserver, or any pool task)",
    docs: DOCS,
    check: Some(check),
    replaced_by: &[],
    language: Some(Language::Python),
    fix: FixAvailability::None,
};

const DOCS: &str = r#"## What it does
Finds a value handed to a child process that `pickle` cannot send:
- a `lambda`;
- a function or class defined inside another function (a closure, a helper nested in
  `train_dataloader()`), or a method or instance of such a class;
- a function or class the script defines inside `if __name__ == "__main__":`, or that a Jupyter
  notebook defines (the kernel's `__main__` is not a file a child can import);
- a bound method or object whose attributes hold something pickle refuses: a `threading` lock,
  event or thread, an open file, a socket, an HDF5 file, a process pool, or one of the above.

It looks at what children are handed: a `Process` target (or the process object of a `Process`
subclass), `torch.multiprocessing.spawn`'s function, a pool's `initializer`, the function of
`Pool.map`/`apply`/`starmap`/`imap` and of `ProcessPoolExecutor.submit`/`map`, and a `DataLoader`'s
dataset, `collate_fn` and `worker_init_fn` when it has workers.

## Why is this bad?
A child started by `spawn` or `forkserver` is a new interpreter. Everything it is handed crosses
over pickled, and pickle saves a function or class by its importable name. A lambda has no name, a
nested function's name (`outer.<locals>.inner`) cannot be imported, and a script's guarded
definitions do not exist when the child imports the script afresh. The start fails with
"Can't pickle local object", "Can't get local object", "attribute lookup <lambda> on __main__
failed" or, in the child, "Can't get attribute 'f' on <module '__mp_main__'>" (a pool then hangs,
restarting workers that die). Objects are pickled with their attributes, so one holding a lock fails
with "cannot pickle '_thread.lock' object".

Pool and executor tasks travel to the workers through a pipe, so their function is pickled under
every start method, fork included.

Spawn is the default on macOS and Windows, and forkserver on Linux from Python 3.14: code that ran
for years under fork breaks there, typically in a data loader's `collate_fn`.

## When it is not a bug
- The child is forked (the default on Linux up to Python 3.13, or `get_context("fork")`) and the
  value is a target, initializer or loader argument: nothing is pickled.
- Module-level functions, `functools.partial` of them, classes, and instances and bound methods of
  module-level classes whose attributes pickle: all travel by name and state.
- A class that defines `__getstate__` or `__reduce__` decides itself what it pickles.
- A `DataLoader` with `num_workers=0` starts no worker.
- `datasets`' `map(num_proc=...)` and the `multiprocess` package pickle with `dill`, which sends
  lambdas and closures by value.

## Example
```python
import torch
from torch.utils.data import DataLoader

def build_loader(dataset, pad_id):
    def collate(batch):
        return torch.nn.utils.rnn.pad_sequence(batch, padding_value=pad_id)

    return DataLoader(dataset, num_workers=4, collate_fn=collate,
                      multiprocessing_context="spawn")
```

Use instead:
```python
import functools

def collate(batch, pad_id):
    return torch.nn.utils.rnn.pad_sequence(batch, padding_value=pad_id)

def build_loader(dataset, pad_id):
    return DataLoader(dataset, num_workers=4,
                      collate_fn=functools.partial(collate, pad_id=pad_id),
                      multiprocessing_context="spawn")
```

## Fix
Define the function or class at module level and bind what it captured with `functools.partial`
(or as attributes of a small module-level class with `__call__`). Create locks, files and pools in
the child (in the target, `worker_init_fn` or the dataset's first `__getitem__`), or leave them out
of the pickled state with `__getstate__`.

gpulint offers no automatic fix: moving a function to module level, or a lock out of the pickled state, changes more than one call.

## References
- Python's multiprocessing programming guidelines: "More picklability" and "Safe importing of main
  module".
- Reports of "Can't pickle local object '...<locals>.worker_init_fn'" and of lambdas in
  `train_dataloader()` once workers started by spawn (icefall, SLidR, catalyst), of notebook-defined
  `collate_fn`s on macOS (pytorch#46648), and of Python 3.14's forkserver default breaking local
  targets and DataLoader arguments on Linux (HogProf, motioneye, guidellm).
"#;

fn check(facts: &Facts, _: &dyn Sources) -> Vec<Diagnostic> {
    facts.unserializable.iter().map(diagnostic).collect()
}

/// What the value is to the child, for messages.
fn role(handed: Handed) -> &'static str {
    match handed {
        Handed::Target => "as the process's target",
        Handed::ProcessObject => "as the process object",
        Handed::Task => "as a pool task",
        Handed::Initializer => "as the pool's `initializer`",
        Handed::Dataset => "as the loader's dataset",
        Handed::CollateFn => "as `collate_fn`",
        Handed::WorkerInitFn => "as `worker_init_fn`",
    }
}

/// Why pickle refuses it, and what to do instead.
fn reason(why: &Unserializable) -> (String, String) {
    match why {
        Unserializable::Anonymous => (
            "pickle saves a function by its name, and a lambda has none".into(),
            "define a module-level function (bind extra arguments with `functools.partial`)".into(),
        ),
        Unserializable::LocalFunction => (
            "it is defined inside a function, where a child cannot import it (\"Can't pickle local object\")".into(),
            "move the function to module level and bind what it captured with `functools.partial`".into(),
        ),
        Unserializable::LocalClass => (
            "its class is defined inside a function, where a child cannot import it (\"Can't pickle local object\")".into(),
            "define the class at module level".into(),
        ),
        Unserializable::MainOnly => (
            "it is defined under `if __name__ == \"__main__\":`, which a child importing the script skips (\"Can't get attribute\")".into(),
            "define it at module level, above the `if __name__ == \"__main__\":` block".into(),
        ),
        Unserializable::InteractiveMain => (
            "it is defined in the notebook, an interactive `__main__` that a child cannot import (\"Can't get attribute ... on <module '__main__' (built-in)>\")".into(),
            "move it to a module next to the notebook (`workers.py`) and import it from there".into(),
        ),
        Unserializable::Holds {
            attr,
            what,
            resource: true,
        } => (
            format!("its attribute `{attr}` holds {what}, which pickle refuses"),
            format!("create `{attr}` in the child, or leave it out of the pickled state with `__getstate__`"),
        ),
        Unserializable::Holds { attr, what, .. } => (
            format!("its attribute `{attr}` holds {what}, which pickle refuses"),
            format!("give `{attr}` a module-level function or class instead (bind arguments with `functools.partial`)"),
        ),
    }
}

fn diagnostic(fact: &UnserializableSent) -> Diagnostic {
    let (why, help) = reason(&fact.why);
    let how = match (fact.handed, fact.start_method) {
        (Handed::Task, StartMethod::Fork) => {
            "pool tasks are pickled under every start method".to_string()
        }
        (_, method) => format!("the child starts by {}, which pickles it", method.name()),
    };
    let mut name = fact.name.to_string();
    if let Some(first) = name.get(..1) {
        name = first.to_uppercase() + &name[1..];
    }
    let mut related: Vec<Related> = fact
        .origin
        .filter(|s| *s != fact.span)
        .map(|span| Related {
            span,
            message: match fact.why {
                Unserializable::Holds { .. } => "made here".into(),
                _ => "defined here".into(),
            },
        })
        .into_iter()
        .collect();
    if let Some(span) = fact.start_method_source.filter(|s| *s != fact.span) {
        related.push(Related {
            span,
            message: format!("{} is chosen here", fact.start_method.name()),
        });
    }
    let default = match (fact.handed, fact.start_method, fact.start_method_source) {
        (Handed::Task, StartMethod::Fork, _) | (_, _, Some(_)) => "",
        (_, StartMethod::Forkserver, None) => {
            " (forkserver is Linux's default start method from Python 3.14)"
        }
        _ => " (spawn is the default start method on macOS and Windows)",
    };
    Diagnostic {
        code: RULE.code,
        name: RULE.name,
        severity: RULE.severity,
        message: format!(
            "{name}, handed to a child {}, cannot be pickled: {why}; {how}{default}",
            role(fact.handed)
        ),
        span: fact.span,
        label: "pickled when the child starts".into(),
        related,
        help,
        fix: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{span, Text};

    fn facts(handed: Handed, why: Unserializable, method: StartMethod) -> Facts {
        Facts {
            unserializable: vec![UnserializableSent {
                span: span(10, 20),
                handed,
                name: "a lambda".into(),
                why,
                origin: Some(span(10, 20)),
                start_method: method,
                start_method_source: Some(span(0, 5)),
            }],
            ..Facts::default()
        }
    }

    #[test]
    fn a_lambda_target_under_spawn() {
        let [d] = check(
            &facts(
                Handed::Target,
                Unserializable::Anonymous,
                StartMethod::Spawn,
            ),
            &Text(""),
        )
        .try_into()
        .unwrap();
        assert_eq!(d.severity, Severity::Error);
        assert!(d.message.starts_with("A lambda"), "{}", d.message);
        assert!(d.message.contains("by spawn"), "{}", d.message);
        // The definition is the argument itself: only the start method is related.
        assert_eq!(d.related.len(), 1);
    }

    #[test]
    fn a_pool_task_under_fork_says_why_it_is_pickled() {
        let [d] = check(
            &facts(
                Handed::Task,
                Unserializable::LocalFunction,
                StartMethod::Fork,
            ),
            &Text(""),
        )
        .try_into()
        .unwrap();
        assert!(d.message.contains("every start method"), "{}", d.message);
    }

    #[test]
    fn a_held_lock_names_the_attribute() {
        let why = Unserializable::Holds {
            attr: "lock".into(),
            what: "`threading.Lock()`".into(),
            resource: true,
        };
        let [d] = check(
            &facts(Handed::Target, why, StartMethod::Forkserver),
            &Text(""),
        )
        .try_into()
        .unwrap();
        assert!(d.message.contains("`lock`"), "{}", d.message);
        assert!(d.help.contains("`lock`"), "{}", d.help);
    }
}
