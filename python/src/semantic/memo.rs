//! Calls replayed instead of run again. A file's entry points build the same objects and call the
//! same helpers many times (`BertModel(config)` under every `BertFor...` receiver, a layer in each
//! pass of a comprehension). A construction or call that started from a world no entry point had
//! written, with arguments that hold no object, and that emitted nothing, wrote nothing it did not
//! allocate and was cut nowhere, is recorded: the objects it allocated, its result and its steps.
//! The same call later, from an equal state, copies those objects instead of running again.

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

use gpulint_core::analysis::Analysis;

use super::control::Control;
use super::process::Process;
use super::value::{Items, ObjId, Value};
use super::{Interp, Object};
use crate::model::{ClassId, FuncId};

/// What a recorded call ran: a class's construction, or a function.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Callee {
    Class(ClassId),
    Function(FuncId),
}

/// How many recorded calls one callee keeps (different arguments or states).
const PER_CALLEE: usize = 8;
/// How many objects a recorded call may have allocated, and how many calls one file's analysis
/// records: with both, the records of any program hold at most a million object pointers.
const MAX_OBJECTS: usize = 512;
const MAX_RECORDS: usize = 2048;

/// The interpreter's record of what may have changed since an entry point started, and the
/// calls recorded so far.
#[derive(Default)]
pub(super) struct Memo<A> {
    /// Recording and replaying are on (in entry points, not the main program).
    pub enabled: bool,
    /// Bumped when the state every entry point starts from changes (see [`Memo::rebase`]).
    generation: u32,
    /// Effects emitted and calls cut so far: either, while a call ran, makes it impure.
    pub emits: u64,
    pub cuts: u64,
    /// Calls recorded so far.
    count: usize,
    /// Replays so far, for tests.
    #[cfg(test)]
    hits: u64,
    recorded: HashMap<Callee, Vec<Recorded<A>>>,
}

struct Recorded<A> {
    generation: u32,
    args: Vec<Value>,
    kwargs: Vec<(String, Value)>,
    context: ControlKey,
    /// The process it started from (held, so that its shared tables stay where they are and a
    /// pointer compared later is never another table's).
    process: Process<A>,
    /// The objects the call allocated, in order (for a construction, the instance first).
    objects: Vec<Arc<Object>>,
    result: Value,
    /// The own-heap index of the first of them when recorded.
    first: u32,
    steps: u64,
}

/// The control flags a replay must match, taken field by field: a field added to [`Control`]
/// does not compile here until it is either in the key or bound to `_` with the reason it need not
/// be.
#[derive(Clone, Copy, PartialEq, Eq)]
struct ControlKey {
    depths: [u32; 5],
    flags: [bool; 2],
}

fn control_key(control: Control) -> ControlKey {
    let Control {
        loop_depth,
        comprehension_depth,
        try_depth,
        unset_guard_depth,
        one_rank_depth,
        start_query_seen,
        run_time,
    } = control;
    ControlKey {
        depths: [
            loop_depth,
            comprehension_depth,
            try_depth,
            unset_guard_depth,
            one_rank_depth,
        ],
        flags: [start_query_seen, run_time],
    }
}

/// Whether a call would read the two processes alike: fields compared, shared tables by pointer.
/// `a` is taken field by field, as [`control_key`] takes the flags.
fn same_process<A>(a: &Process<A>, b: &Process<A>) -> bool {
    let Process {
        id,
        cuda,
        child_of,
        start_methods,
        default_cuda,
        gpu_libraries,
        env,
        bound,
        launcher_binding,
        per_worker,
        // Read only where a child starts (`child_launch`), which takes a process id: a call that
        // started one is never recorded. Written only by `launched`, which emits.
        launch: _,
        reimport,
        spawned,
        exited,
        partial,
        // Read only into a child's start (`default_in_entry`), as `launch`; set only between
        // entry points, never while a call runs.
        entry: _,
        analyses,
    } = a;
    *id == b.id
        && *cuda == b.cuda
        && *child_of == b.child_of
        && Arc::ptr_eq(start_methods, &b.start_methods)
        && *default_cuda == b.default_cuda
        && Arc::ptr_eq(gpu_libraries, &b.gpu_libraries)
        && Arc::ptr_eq(env, &b.env)
        && *bound == b.bound
        && *launcher_binding == b.launcher_binding
        && [*per_worker, *reimport, *spawned, *exited, *partial]
            == [b.per_worker, b.reimport, b.spawned, b.exited, b.partial]
        && analyses.ptr_eq(&b.analyses)
}

/// What a recording needs to tell, when the construction ends, whether it was pure.
pub(super) struct Recording<A> {
    context: ControlKey,
    process: Process<A>,
    first: u32,
    written_from: u32,
    emits: u64,
    cuts: u64,
    fuel: u64,
    next_process: u32,
    fork_calls: usize,
}

impl<A> Memo<A> {
    /// The state entry points start from changed; a change that wrote shared state the entry
    /// points had (`dirty`, see `World::dirty`) makes earlier records stale.
    pub fn rebase(&mut self, dirty: bool) {
        if dirty {
            self.generation += 1;
            self.recorded.clear();
            self.count = 0;
        }
    }
}

impl<'m, A: Analysis> Interp<'m, A> {
    /// Whether this call may be replayed or recorded, and then its result if one is recorded;
    /// `Err` holds the recording to finish with [`Interp::record`].
    pub(super) fn replay(
        &mut self,
        callee: Callee,
        args: &[Value],
        kwargs: &[(String, Value)],
    ) -> Option<Result<Value, Recording<A>>> {
        let memo = &self.memo;
        let local = match callee {
            Callee::Class(class) => self.class(class).local,
            Callee::Function(id) => self.func(id).parent.is_some(),
        };
        // An object the running entry point did not allocate is the same, unwritten, in every
        // entry point of this generation (writing one makes the entry dirty).
        let stable = |id: ObjId| self.world.older_than_entry(id);
        if !memo.enabled
            || self.world.dirty()
            || self.procs.len() != 1
            || local
            || !args.iter().all(|v| plain(v, &stable))
            || !kwargs.iter().all(|(_, v)| plain(v, &stable))
        {
            return None;
        }
        let context = control_key(self.control);
        let process = self.proc_ref();
        let found = memo.recorded.get(&callee).and_then(|records| {
            records.iter().find(|r| {
                r.generation == memo.generation
                    && r.context == context
                    && same_process(&r.process, process)
                    && all_eq(&r.args, args)
                    && pairs_eq(&r.kwargs, kwargs)
            })
        });
        if let Some(r) = found {
            if r.steps <= self.budget.fuel {
                let (objects, first, steps) = (r.objects.clone(), r.first, r.steps);
                let result = r.result.clone();
                self.budget.fuel -= steps;
                #[cfg(test)]
                {
                    self.memo.hits += 1;
                }
                return Some(Ok(self.copy_objects(&objects, first, &result)));
            }
        }
        let process = self.proc_ref().clone();
        let memo = &self.memo;
        let recording = Recording {
            context,
            process,
            first: self.world.heap().own_len(),
            written_from: self.world.begin_recording(),
            emits: memo.emits,
            cuts: memo.cuts,
            fuel: self.budget.fuel,
            next_process: self.next_process,
            fork_calls: self.fork_calls.len(),
        };
        Some(Err(recording))
    }

    /// Ends a recording begun by [`Interp::replay`]: keeps the call if it was pure.
    pub(super) fn record(
        &mut self,
        callee: Callee,
        result: &Value,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
        recording: Recording<A>,
    ) {
        let written_from = self.world.end_recording(recording.written_from);
        let memo = &self.memo;
        let pure = written_from >= recording.first
            && memo.emits == recording.emits
            && memo.cuts == recording.cuts
            && !self.world.dirty()
            && self.next_process == recording.next_process
            && self.fork_calls.len() == recording.fork_calls
            && self.procs.len() == 1
            && control_key(self.control) == recording.context
            && same_process(self.proc_ref(), &recording.process);
        if !pure
            || self.memo.count >= MAX_RECORDS
            || (self.world.heap().own_len() - recording.first) as usize > MAX_OBJECTS
        {
            return;
        }
        let objects = self.world.heap().own_objects(recording.first);
        let copyable = objects.iter().all(|o| {
            matches!(
                &**o,
                Object::Instance { .. } | Object::Partial { .. } | Object::Compose(_)
            )
        });
        if !copyable {
            return;
        }
        let generation = memo.generation;
        let records = self.memo.recorded.entry(callee).or_default();
        if records.len() >= PER_CALLEE {
            return;
        }
        self.memo.count += 1;
        records.push(Recorded {
            generation,
            args,
            kwargs,
            context: recording.context,
            process: recording.process,
            objects,
            result: result.clone(),
            first: recording.first,
            steps: recording.fuel - self.budget.fuel,
        });
    }

    /// Allocates copies of recorded objects (their references to one another moved to the
    /// copies); the recorded result, moved likewise.
    fn copy_objects(&mut self, objects: &[Arc<Object>], first: u32, result: &Value) -> Value {
        let moved = Moved {
            own: self.world.heap().own(),
            first,
            end: first + objects.len() as u32,
            to: self.world.heap().own_len(),
        };
        for object in objects {
            let copy = moved.object(object);
            self.alloc(copy);
        }
        moved.value(result)
    }
}

/// A value holds no object, bound method or closure: equal values are equal arguments.
fn plain(v: &Value, stable: &impl Fn(ObjId) -> bool) -> bool {
    match v {
        Value::Object(id) => stable(*id),
        Value::BoundMethod(_, receiver) => plain(receiver, stable),
        Value::Function(_, Some(_)) | Value::Cuda(_) => false,
        Value::Sequence(items) => items.iter().all(|v| plain(v, stable)),
        Value::OneOf(items) => items.iter().all(|v| plain(v, stable)),
        Value::Mapping(entries) => entries.iter().all(|(_, v)| plain(v, stable)),
        _ => true,
    }
}

/// Equality of two [`plain`] values (which hold no closure, so a function is its id).
fn plain_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Unknown, Value::Unknown) => true,
        (
            Value::HostTensor {
                pinned: a,
                numel: m,
                layer: x,
            },
            Value::HostTensor {
                pinned: b,
                numel: n,
                layer: y,
            },
        ) => a == b && m == n && x == y,
        (Value::BoundMethod(f, a), Value::BoundMethod(g, b)) => f == g && plain_eq(a, b),
        (Value::Sequence(a), Value::Sequence(b)) => all_eq(a, b),
        (Value::OneOf(a), Value::OneOf(b)) => all_eq(a, b),
        (Value::Mapping(a), Value::Mapping(b)) => pairs_eq(a, b),
        (a, b) => super::value::same(a, b),
    }
}

/// [`plain_eq`] item by item.
fn all_eq(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(a, b)| plain_eq(a, b))
}

/// [`plain_eq`] entry by entry, names equal too.
fn pairs_eq(a: &[(String, Value)], b: &[(String, Value)]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|((k, a), (l, b))| k == l && plain_eq(a, b))
}

/// Moves references to recorded objects (own-heap indices `first..end`) to their copies at `to`.
struct Moved {
    own: u32,
    first: u32,
    end: u32,
    to: u32,
}

impl Moved {
    fn object(&self, object: &Object) -> Object {
        match object {
            Object::Instance {
                class,
                attrs,
                held_by,
            } => Object::Instance {
                class: *class,
                held_by: held_by.clone(),
                attrs: attrs
                    .iter()
                    .map(|(k, v)| (k.clone(), self.value(v)))
                    .collect(),
            },
            Object::Partial { func, args } => Object::Partial {
                func: self.value(func),
                args: args.iter().map(|v| self.value(v)).collect(),
            },
            Object::Compose(items) => {
                Object::Compose(items.iter().map(|v| self.value(v)).collect())
            }
            other => other.clone(),
        }
    }

    fn value(&self, v: &Value) -> Value {
        match v {
            Value::Object(id)
                if id.segment == self.own && (self.first..self.end).contains(&id.index) =>
            {
                Value::Object(ObjId {
                    segment: self.own,
                    index: id.index - self.first + self.to,
                })
            }
            Value::BoundMethod(f, receiver) => {
                Value::BoundMethod(*f, Box::new(self.value(receiver)))
            }
            Value::Function(f, Some(captures)) => Value::Function(
                *f,
                Some(Arc::new(
                    captures
                        .iter()
                        .map(|(k, v)| (k.clone(), self.value(v)))
                        .collect(),
                )),
            ),
            Value::Sequence(items) => {
                Value::Sequence(Items::new(items.iter().map(|v| self.value(v)).collect()))
            }
            Value::OneOf(items) => Value::OneOf(items.iter().map(|v| self.value(v)).collect()),
            Value::Mapping(entries) => Value::Mapping(std::sync::Arc::new(
                entries
                    .iter()
                    .map(|(k, v)| (k.clone(), self.value(v)))
                    .collect(),
            )),
            other => other.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Interp, Settings};
    use crate::program::{Input, Program};
    use crate::source::FileId;
    use gpulint_analyses::{Analyses, Facts};

    /// The facts of `source` as the main program, and how many calls were replayed.
    fn run(source: &str) -> (Facts, u64) {
        let program = Program::build(vec![Input::Text {
            path: "main.py".into(),
            text: source.to_string(),
        }]);
        let cache = super::super::ImportCache::<Analyses>::default();
        // One file that nothing imports: a leaf, parsed for its analysis.
        let leaf = program
            .parse_leaf(FileId(0))
            .expect("a leaf")
            .expect("valid Python");
        let names = super::super::referenced_names(&leaf.module);
        let leaf = Some((&leaf.module, &names));
        let mut interp = Interp::new(&program, &cache, FileId(0), Settings::default(), leaf);
        interp.run();
        (interp.facts, interp.memo.hits)
    }

    /// Each fork point's child code uses CUDA, by the fork's line.
    fn child_uses(facts: &Facts, source: &str) -> Vec<(usize, bool)> {
        let mut uses: Vec<(usize, bool)> = facts
            .forks
            .iter()
            .map(|f| {
                let line = source[..f.span.start as usize].matches('\n').count() + 1;
                (line, f.child_use.is_some())
            })
            .collect();
        uses.sort();
        uses
    }

    const HEAD: &str = "import torch\nimport multiprocessing as mp\n\ndef work():\n    torch.zeros(1, device='cuda')\n\n";

    #[test]
    fn a_replayed_construction_holds_what_the_first_one_built() {
        // `B`'s receiver builds `Holder()` as `A`'s did: the second is a copy, with a copy of
        // its `Inner` (not `A`'s, whose `fn` `A` overwrote), and it still hands `work` on.
        let source = format!(
            "{HEAD}class Holder:\n    def __init__(self, n=1):\n        self.fn = work\n        self.inner = Inner()\n\n\
             class Inner:\n    def __init__(self):\n        self.fn = work\n\n\
             class A:\n    def __init__(self):\n        self.h = Holder()\n        self.h.inner.fn = None\n\n    def run(self):\n        torch.cuda.init()\n        mp.Process(target=self.h.inner.fn).start()\n\n\
             class B:\n    def __init__(self):\n        self.h = Holder()\n\n    def run(self):\n        torch.cuda.init()\n        mp.Process(target=self.h.inner.fn).start()\n"
        );
        let (facts, hits) = run(&source);
        assert!(hits > 0, "nothing was replayed");
        assert_eq!(child_uses(&facts, &source), vec![(23, false), (31, true)]);
    }

    #[test]
    fn replayed_copies_are_distinct_objects() {
        // The second `Box()` is a replay of the first; writing the first leaves the second as
        // built, so its `fn` stays unknown.
        let source = format!(
            "{HEAD}class Box:\n    def __init__(self):\n        self.size = 1\n\n\
             class A:\n    def __init__(self):\n        self.a = Box()\n        self.b = Box()\n        self.a.fn = work\n\n    def run(self):\n        torch.cuda.init()\n        mp.Process(target=self.b.fn).start()\n        mp.Process(target=self.a.fn).start()\n"
        );
        let (facts, hits) = run(&source);
        assert!(hits > 0, "nothing was replayed");
        assert_eq!(child_uses(&facts, &source), vec![(19, false), (20, true)]);
    }

    #[test]
    fn nothing_is_replayed_after_a_global_is_written() {
        // `B.__init__` writes the global `Cfg()` reads: its `Cfg()` runs again and sees `work`.
        let source = format!(
            "{HEAD}MODE = None\n\nclass Cfg:\n    def __init__(self):\n        self.fn = MODE\n\n\
             class A:\n    def __init__(self):\n        self.c = Cfg()\n\n    def run(self):\n        torch.cuda.init()\n        mp.Process(target=self.c.fn).start()\n\n\
             class B:\n    def __init__(self):\n        global MODE\n        MODE = work\n        self.c = Cfg()\n\n    def run(self):\n        torch.cuda.init()\n        mp.Process(target=self.c.fn).start()\n"
        );
        let (facts, _) = run(&source);
        assert_eq!(child_uses(&facts, &source), vec![(19, false), (29, true)]);
    }

    #[test]
    fn a_call_that_emits_is_not_replayed() {
        // `setup()` initialises CUDA: each entry point that calls it must see that again.
        let source = format!(
            "{HEAD}def setup(n=0):\n    torch.cuda.init()\n    return n\n\n\
             def first():\n    setup()\n    mp.Process(target=work).start()\n\n\
             def second():\n    setup()\n    mp.Process(target=work).start()\n"
        );
        let (facts, hits) = run(&source);
        assert_eq!(hits, 0);
        assert!(
            facts.forks.iter().all(|f| f.parent_init.is_some()),
            "{facts:#?}"
        );
        assert_eq!(facts.forks.len(), 2);
    }

    #[test]
    fn a_plain_function_call_is_replayed_with_its_result() {
        // `make()` is pure: the second entry point's call is a replay, and its result (a fresh
        // object holding `work`) still reaches the child.
        let source = format!(
            "{HEAD}class Job:\n    pass\n\ndef make(kind='a'):\n    job = Job()\n    job.fn = work\n    return job\n\n\
             def first():\n    job = make()\n    torch.cuda.init()\n    mp.Process(target=job.fn).start()\n\n\
             def second():\n    job = make()\n    torch.cuda.init()\n    mp.Process(target=job.fn).start()\n"
        );
        let (facts, hits) = run(&source);
        assert!(hits > 0, "nothing was replayed");
        assert_eq!(child_uses(&facts, &source), vec![(18, true), (23, true)]);
    }

    #[test]
    fn an_object_the_entry_point_did_not_make_is_a_plain_argument_until_written() {
        // `REG` is the main program's: `third` replays `first`'s `build(REG)`; `second` wrote
        // `REG.fn` first, so its call runs again and sees `work`.
        let source = format!(
            "{HEAD}class Registry:\n    def __init__(self):\n        self.fn = None\n\n\
             class Job:\n    pass\n\nREG = Registry()\n\n\
             def build(reg):\n    job = Job()\n    job.fn = reg.fn\n    return job\n\n\
             def first():\n    job = build(REG)\n    torch.cuda.init()\n    mp.Process(target=job.fn).start()\n\n\
             def second():\n    REG.fn = work\n    job = build(REG)\n    torch.cuda.init()\n    mp.Process(target=job.fn).start()\n\n\
             def third():\n    job = build(REG)\n    torch.cuda.init()\n    mp.Process(target=job.fn).start()\n"
        );
        let (facts, hits) = run(&source);
        assert!(hits > 0, "nothing was replayed");
        assert_eq!(
            child_uses(&facts, &source),
            vec![(24, false), (30, true), (35, false)]
        );
    }

    #[test]
    fn a_call_that_allocated_too_much_is_not_recorded() {
        // 600 objects: past `MAX_OBJECTS`, so the second `make()` runs again. Its `Job()`s are
        // replays of the first (599 in the first call, 600 in the second); a replayed `make()`
        // would have made it 600 in all. Each entry binds a device after, so that it runs (an
        // entry that can reach nothing decisive is not run).
        let body: String = (0..600).map(|i| format!("    a{i} = Job()\n")).collect();
        let source = format!(
            "{HEAD}class Job:\n    pass\n\ndef make(kind='a'):\n{body}    return a0\n\n\
             def first():\n    make()\n    torch.cuda.set_device(0)\n\n\
             def second():\n    make()\n    torch.cuda.set_device(0)\n"
        );
        assert_eq!(run(&source).1, 599 + 600);
        // One object: the second `make()` is a replay.
        let small = source.replace(&body, "    a0 = Job()\n");
        assert_eq!(run(&small).1, 1);
    }
}
