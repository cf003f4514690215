//! No dead rows: every row of every library table, run in a small program that calls (or reads) its
//! name, produces the effect its behaviour documents.
//!
//! Each behaviour kind has its probes: a program and what its effects must (and must not) hold. The
//! programs are built so that the expected effect can only come from the row under test: with the
//! row removed, the call is an unknown call and some check fails. The matches below name every
//! behaviour kind without a catch-all, so a new kind cannot be added without probes of its own.

use std::collections::HashSet;
use std::fmt::Write as _;

use gpulint_core::analysis::{Analysis, Context, ProcessEnd};
use gpulint_core::effect::{
    Backend, Binding, Channel, ChildKind, DeviceIndex, Effect, Init, Nodes, StartMethod,
    Unserializable, VisibilityWrite,
};
use gpulint_python::libraries::processes::{Carrier, Layer, ProcessApi, WorkerCall};
use gpulint_python::libraries::{
    self, AttributeBehaviour, AttributeRow, Behaviour, EnvRole, EnvRow, ImportRow, Iteration,
    MethodBehaviour, MethodRow, Param, Receiver, Row,
};
use gpulint_python::program::{Input, Program};
use gpulint_python::semantic::{analyze, ImportCache, Settings};
use gpulint_python::source::FileId;

/// Records every effect of every simulated process, in the order the interpreter reports them.
#[derive(Clone, Default, Debug)]
struct Log;

impl Analysis for Log {
    type Facts = Vec<Effect>;

    fn effect(&mut self, effect: &Effect, _: &Context, facts: &mut Vec<Effect>) {
        facts.push(effect.clone());
    }

    fn join(&mut self, _: Log) {}

    fn finish(self, _: &ProcessEnd, _: &mut Vec<Effect>) {}
}

/// Probes known to fail, as (row, probe label): each entry is a reported finding (a dead row or an
/// interpreter bug), never a way to quiet one. Empty: every probe passes.
const KNOWN_FAILURES: &[(&str, &str)] = &[];

// ---------------------------------------------------------------------------------------------
// Probes: a program and what its effects must hold.

type Check = Box<dyn Fn(&[Effect]) -> bool>;

struct Probe {
    label: String,
    /// The main program, `main.py`.
    text: String,
    /// Other modules of the program, by file name: with them, the program is written to a folder
    /// and run with its import cache built, as gpulint runs it.
    modules: Vec<(&'static str, String)>,
    expect: Vec<(String, Check)>,
    settings: Settings,
}

impl Probe {
    fn new(label: impl Into<String>, text: String) -> Probe {
        Probe {
            label: label.into(),
            text,
            modules: Vec::new(),
            expect: Vec::new(),
            settings: Settings::default(),
        }
    }

    fn settings(mut self, settings: Settings) -> Probe {
        self.settings = settings;
        self
    }

    fn module(mut self, file: &'static str, text: String) -> Probe {
        self.modules.push((file, text));
        self
    }

    /// Some effect matches.
    fn has(self, what: &str, p: impl Fn(&Effect) -> bool + 'static) -> Probe {
        self.holds(&format!("has {what}"), move |e| e.iter().any(&p))
    }

    /// No effect matches.
    fn lacks(self, what: &str, p: impl Fn(&Effect) -> bool + 'static) -> Probe {
        self.holds(&format!("has no {what}"), move |e| !e.iter().any(&p))
    }

    fn holds(mut self, what: &str, f: impl Fn(&[Effect]) -> bool + 'static) -> Probe {
        self.expect.push((what.to_string(), Box::new(f)));
        self
    }

    fn labelled(mut self, prefix: &str) -> Probe {
        self.label = format!("{prefix}: {}", self.label);
        self
    }
}

/// A name as a program spells it: the import that binds it and the expression that names it.
#[derive(Clone)]
struct Callee {
    /// The qualified name the row is looked up by.
    name: String,
    /// Lines that bind the expression's head.
    setup: String,
    expr: String,
}

/// `import a.b` then `a.b.c`; `builtins.len` is `len`; `torch.get_device_module().device_count` is
/// written as it is.
fn callee(name: &str) -> Callee {
    if let Some(bare) = name.strip_prefix("builtins.") {
        return Callee {
            name: name.into(),
            setup: String::new(),
            expr: bare.into(),
        };
    }
    let module = match name.rsplit_once('.') {
        Some((parent, _)) if !parent.contains('(') => parent,
        _ => name.split('.').next().unwrap_or(name),
    };
    Callee {
        name: name.into(),
        setup: format!("import {module}\n"),
        expr: name.into(),
    }
}

/// The program: torch (a file is interpreted only when it imports a GPU package) and os, the
/// callee's import, then `body`.
fn program(c: &Callee, body: &str) -> String {
    format!("import torch\nimport os\n{}{body}", c.setup)
}

/// Python source from its lines.
fn py(lines: &[&str]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// A block under the main guard (a spawned child re-importing the module does not run it).
fn main_guard(block: &str) -> String {
    let body: String = block.lines().map(|l| format!("    {l}\n")).collect();
    format!("if __name__ == '__main__':\n{body}")
}

/// A call passing each argument where its parameter says: positionally while the positions run on
/// from 0, by keyword after that.
fn call(f: &str, args: &[(Param, &str)]) -> String {
    let mut args = args.to_vec();
    args.sort_by_key(|(p, _)| p.index.unwrap_or(usize::MAX));
    let mut next = 0;
    let mut out = Vec::new();
    for (p, v) in args {
        if p.index == Some(next) {
            out.push(v.to_string());
            next += 1;
        } else {
            out.push(format!("{}={v}", p.name));
            next = usize::MAX;
        }
    }
    format!("{f}({})", out.join(", "))
}

/// The last part of a name, as effects quote it.
fn short(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// Functions children run: each allocates on the device it is given. Run as an entry of their own
/// (with unknown arguments) they allocate nothing, so an allocation shows they were really called.
const WORKERS: &str = "\
def work(v):
    t = torch.zeros(1, device=v)

def init(v):
    t = torch.zeros(1, device=v)

def job(i, v):
    t = torch.zeros(1, device=i)
    s = torch.zeros(1, device=v)

";

/// A dataset whose items a loader's workers fetch, with a collate function and a worker init.
const DATASET: &str = "\
class Items:
    def __getitem__(self, i):
        return torch.zeros(1, device='cuda:1')

def collate(items):
    return items

def seed(i):
    pass

";

const CUDA_1: DeviceIndex = DeviceIndex::Fixed(1);
const CUDA_2: DeviceIndex = DeviceIndex::Fixed(2);
const PER_WORKER: DeviceIndex = DeviceIndex::PerWorker;
const CURRENT: DeviceIndex = DeviceIndex::Current;

// ---------------------------------------------------------------------------------------------
// Effect predicates.

fn init_at(level: Init) -> impl Fn(&Effect) -> bool {
    move |e| matches!(e, Effect::CudaInit { site, .. } if site.level == level)
}

fn init_failing(level: Init, fails: bool) -> impl Fn(&Effect) -> bool {
    move |e| match e {
        Effect::CudaInit {
            site,
            fails_in_child,
        } => site.level == level && *fails_in_child == fails,
        _ => false,
    }
}

fn any_init(e: &Effect) -> bool {
    matches!(e, Effect::CudaInit { .. })
}

fn object(index: DeviceIndex) -> impl Fn(&Effect) -> bool {
    move |e| matches!(e, Effect::CudaObjectCreated { object, .. } if object.index == index)
}

fn host_compute(e: &Effect) -> bool {
    matches!(e, Effect::HostCompute { .. })
}

fn threads_limited(e: &Effect) -> bool {
    matches!(e, Effect::HostThreadsLimited { .. })
}

fn any_object(e: &Effect) -> bool {
    matches!(e, Effect::CudaObjectCreated { .. })
}

/// A CUDA object sent to another process through this kind of channel.
fn sent(channel: Channel) -> impl Fn(&Effect) -> bool {
    move |e| matches!(e, Effect::CudaObjectSent { channel: c, .. } if *c == channel)
}

fn waited(e: &Effect) -> bool {
    matches!(e, Effect::WaitedForOthers { .. })
}

/// Lines that send the CUDA tensor `t` through what `carrier` makes, bound to `c`.
fn send_through(carrier: Carrier) -> (&'static str, Channel) {
    match carrier {
        Carrier::Queue => ("c.put(t)", Channel::Queue),
        Carrier::Pipe => ("a, b = c\na.send(t)", Channel::Queue),
        Carrier::Manager => ("d = c.dict()\nd['k'] = t", Channel::ManagerProxy),
    }
}

/// A read of the variable `name` holding a CUDA object.
fn uses(name: &str) -> impl Fn(&Effect) -> bool {
    let quoted = format!("uses `{name}`,");
    move |e| matches!(e, Effect::CudaUsed { what, .. } if what.contains(&quoted))
}

/// A use of a CUDA object held by the global binding `name`.
fn global_use(name: &'static str) -> impl Fn(&Effect) -> bool {
    move |e| match e {
        Effect::CudaUsed { object, .. } => {
            object.global.as_ref().is_some_and(|(n, _)| &**n == name)
        }
        _ => false,
    }
}

fn child(kind: ChildKind) -> impl Fn(&Effect) -> bool {
    move |e| matches!(e, Effect::ChildStarted(c) if c.kind == kind)
}

fn child_by(kind: ChildKind, method: StartMethod) -> impl Fn(&Effect) -> bool {
    move |e| matches!(e, Effect::ChildStarted(c) if c.kind == kind && c.start_method == method)
}

/// A child of this kind that starts with its parent's CUDA state.
fn inheriting(kind: ChildKind) -> impl Fn(&Effect) -> bool {
    move |e| matches!(e, Effect::ChildStarted(c) if c.kind == kind && c.parent_init.is_some())
}

fn any_child(e: &Effect) -> bool {
    matches!(e, Effect::ChildStarted(_))
}

/// The child runs this function (`work`, `Items.__getitem__`).
fn runs(function: &str) -> impl Fn(&Effect) -> bool {
    let quoted = format!("`{function}`");
    move |e| matches!(e, Effect::ChildRuns { code } if **code == *quoted)
}

fn bound(binding: Binding, chooses: bool) -> impl Fn(&Effect) -> bool {
    move |e| match e {
        Effect::DeviceBound {
            binding: b,
            chooses: c,
            ..
        } => *b == binding && *c == chooses,
        _ => false,
    }
}

fn any_bound(e: &Effect) -> bool {
    matches!(e, Effect::DeviceBound { .. })
}

fn group(backend: Backend, given: bool) -> impl Fn(&Effect) -> bool {
    move |e| match e {
        Effect::ProcessGroupCreated {
            backend: b,
            device_given,
            ..
        } => *b == backend && *device_given == given,
        _ => false,
    }
}

fn any_group(e: &Effect) -> bool {
    matches!(e, Effect::ProcessGroupCreated { .. })
}

/// A collective (named `name`, when given) on an explicit device or group, or not.
fn collective(name: Option<String>, explicit: bool) -> impl Fn(&Effect) -> bool {
    move |e| match e {
        Effect::CollectiveRun {
            name: n,
            explicit_device,
            ..
        } => name.as_deref().is_none_or(|name| **n == *name) && *explicit_device == explicit,
        _ => false,
    }
}

fn start_set(method: StartMethod) -> impl Fn(&Effect) -> bool {
    move |e| match e {
        Effect::StartMethodSet {
            method: m,
            at_module_scope,
            ..
        } => *m == method && *at_module_scope,
        _ => false,
    }
}

fn from_global_rank(e: &Effect) -> bool {
    matches!(e, Effect::DeviceFromGlobalRank { .. })
}

fn launched(nodes: Nodes) -> impl Fn(&Effect) -> bool {
    move |e| matches!(e, Effect::Launched { nodes: n, .. } if *n == nodes)
}

fn any_launch(e: &Effect) -> bool {
    matches!(e, Effect::Launched { .. })
}

fn saved(host: bool) -> impl Fn(&Effect) -> bool {
    move |e| matches!(e, Effect::CheckpointSaved { host_only, .. } if *host_only == host)
}

fn unmapped(e: &Effect) -> bool {
    matches!(e, Effect::UnmappedLoad { .. })
}

fn written(key: &str) -> impl Fn(&Effect) -> bool {
    let key = key.to_string();
    move |e| matches!(e, Effect::EnvWritten { key: k, .. } if **k == *key)
}

fn visibility(kind: VisibilityWrite) -> impl Fn(&Effect) -> bool {
    move |e| matches!(e, Effect::EnvWritten { visibility: Some(v), .. } if *v == kind)
}

fn written_as(key: &'static str, value: &'static str) -> impl Fn(&Effect) -> bool {
    move |e| match e {
        Effect::EnvWritten {
            key: k,
            value: Some(v),
            ..
        } => &**k == key && &**v == value,
        _ => false,
    }
}

/// Some `b` comes after the first `a`.
fn after(
    a: impl Fn(&Effect) -> bool + 'static,
    b: impl Fn(&Effect) -> bool + 'static,
) -> impl Fn(&[Effect]) -> bool {
    move |e| e.iter().position(&a).is_some_and(|i| e[i..].iter().any(&b))
}

/// The first `a` comes before the first `b`.
fn before(
    a: impl Fn(&Effect) -> bool + 'static,
    b: impl Fn(&Effect) -> bool + 'static,
) -> impl Fn(&[Effect]) -> bool {
    move |e| match (e.iter().position(&a), e.iter().position(&b)) {
        (Some(i), Some(j)) => i < j,
        _ => false,
    }
}

// ---------------------------------------------------------------------------------------------
// Probes per behaviour.

/// The probes of a library call (function or class) `c` that does `does`; `Err` for a row that is
/// wrong without running anything.
fn probes(c: &Callee, does: Behaviour) -> Result<Vec<Probe>, String> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
    Ok(match does {
        Behaviour::Alias(to) => alias(c, to)?,
        Behaviour::InitsCuda {
            level,
            object,
            safe_in_child,
            unless_env,
        } => inits_cuda(c, level, object, safe_in_child, unless_env),
        Behaviour::CudaTensorType => vec![
            Probe::new(
                "allocates on the current device",
                p(py(&[&format!("t = {x}(2)")])),
            )
            .has("CudaInit at Context", init_failing(Init::Context, true)),
            Probe::new(
                "as the default tensor type, makes later tensors CUDA tensors",
                p(py(&[
                    &format!("torch.set_default_tensor_type({x})"),
                    "t = torch.zeros(1)",
                ])),
            )
            .has("a CUDA tensor", object(CURRENT)),
        ],
        Behaviour::BindsDevice { device } => vec![
            Probe::new(
                "binds a constant device",
                p(py(&[&call(x, &[(device, "1")])])),
            )
            .has(
                "DeviceBound not chosen per worker",
                bound(Binding::Call, false),
            )
            .has("CudaInit at Context", init_at(Init::Context)),
            Probe::new(
                "binds a rank's device",
                p(py(&[
                    "v = int(os.environ['LOCAL_RANK'])",
                    &call(x, &[(device, "v")]),
                ])),
            )
            .has("DeviceBound chosen per worker", bound(Binding::Call, true)),
        ],
        Behaviour::BindsDeviceUnderLauncher { init, owner } => under_launcher(c, init, owner),
        Behaviour::Factory {
            device,
            pin_memory,
            default_device,
            host_tensor,
        } => {
            let on_default = Probe::new(
                "the default device",
                p(py(&[
                    "torch.set_default_device('cuda')",
                    &format!("t = {x}()"),
                ])),
            );
            let mut out = vec![
                Probe::new(
                    "allocates on the device named",
                    p(py(&[&format!("t = {}", call(x, &[(device, "'cuda:1'")]))])),
                )
                .has("a tensor on cuda:1", object(CUDA_1)),
                if default_device {
                    on_default.has("a tensor on the current device", object(CURRENT))
                } else {
                    on_default.lacks("CUDA object", any_object)
                },
                Probe::new(
                    "allocates nothing on the CPU",
                    p(py(&[&format!("t = {}", call(x, &[(device, "'cpu'")]))])),
                )
                .lacks("CUDA object", any_object),
            ];
            if let Some(pin) = pin_memory {
                let pinned = |flag: &str| p(py(&[&format!("t = {}", call(x, &[(pin, flag)]))]));
                out.push(
                    Probe::new(
                        format!("`{}=True` creates a context", pin.name),
                        pinned("True"),
                    )
                    .has(
                        "CudaInit at Context, fails_in_child true",
                        init_failing(Init::Context, true),
                    )
                    .lacks("CUDA object (pinned memory is host memory)", any_object),
                );
                out.push(
                    Probe::new(
                        format!("`{}=False` touches nothing", pin.name),
                        pinned("False"),
                    )
                    .lacks("CudaInit", any_init),
                );
            }
            let product = Probe::new(
                "a product of what it makes, on the CPU",
                p(py(&[&format!("t = {x}()"), "u = t @ t"])),
            );
            out.push(if host_tensor {
                product.has("HostCompute", host_compute)
            } else {
                product.lacks("HostCompute", host_compute)
            });
            out
        }
        Behaviour::Computes => vec![
            Probe::new(
                "computes on host tensors",
                p(py(&["a = torch.ones(2)", &format!("y = {x}(a, a)")])),
            )
            .has("HostCompute", host_compute),
            Probe::new(
                "not on CUDA tensors",
                p(py(&[
                    "a = torch.zeros(2, device='cuda:1')",
                    &format!("y = {x}(a, a)"),
                ])),
            )
            .lacks("HostCompute", host_compute),
        ],
        Behaviour::LimitsHostThreads { count } => vec![
            Probe::new("one thread", p(py(&[&call(x, &[(count, "1")])])))
                .has("HostThreadsLimited", threads_limited),
            Probe::new("four threads", p(py(&[&call(x, &[(count, "4")])])))
                .lacks("HostThreadsLimited", threads_limited),
        ],
        Behaviour::CreatesParameters => vec![
            Probe::new(
                "creates its parameters on a CUDA default device",
                p(py(&[
                    "torch.set_default_device('cuda')",
                    &format!("m = {x}(2, 2)"),
                ])),
            )
            .has("a CUDA module", object(CURRENT)),
            Probe::new(
                "creates nothing on CUDA by default",
                p(py(&[&format!("m = {x}(2, 2)")])),
            )
            .lacks("CUDA object", any_object),
        ],
        Behaviour::DeviceValue { kind, index } => {
            let named = |i: &str| {
                let device = call(x, &[(kind, "'cuda'"), (index, i)]);
                format!("t = torch.zeros(1, device={device})")
            };
            vec![
                Probe::new("names a constant device", p(py(&[&named("1")])))
                    .has("a tensor on cuda:1", object(CUDA_1))
                    .holds("one CudaInit, the tensor's", |e| {
                        e.iter().filter(|e| any_init(e)).count() == 1
                    }),
                Probe::new(
                    "names a rank's device",
                    p(py(&["v = int(os.environ['LOCAL_RANK'])", &named("v")])),
                )
                .has("a tensor on a per-worker device", object(PER_WORKER)),
            ]
        }
        Behaviour::CudaDevice { index } => {
            let on = |arg: &[(Param, &str)]| {
                p(py(&[&format!(
                    "t = torch.zeros(1, device={})",
                    call(x, arg)
                )]))
            };
            vec![
                Probe::new("names the ordinal given", on(&[(index, "1")]))
                    .has("a tensor on cuda:1", object(CUDA_1))
                    .holds("one CudaInit, the tensor's", |e| {
                        e.iter().filter(|e| any_init(e)).count() == 1
                    }),
                Probe::new("names device 0 by default", on(&[]))
                    .has("a tensor on cuda:0", object(DeviceIndex::Fixed(0))),
                Probe::new(
                    "names a rank's device",
                    p(py(&[
                        "v = int(os.environ['LOCAL_RANK'])",
                        &format!("t = torch.zeros(1, device={})", call(x, &[(index, "v")])),
                    ])),
                )
                .has("a tensor on a per-worker device", object(PER_WORKER)),
                Probe::new(
                    "touches nothing itself",
                    p(py(&[&format!("d = {}", call(x, &[(index, "1")]))])),
                )
                .lacks("CudaInit", any_init),
            ]
        }
        Behaviour::SetsDefaultDevice { device } => vec![
            Probe::new(
                "makes later tensors CUDA tensors",
                p(py(&[&call(x, &[(device, "'cuda'")]), "t = torch.zeros(1)"])),
            )
            .has("a tensor on the current device", object(CURRENT)),
            Probe::new(
                "a CPU default changes nothing",
                p(py(&[&call(x, &[(device, "'cpu'")]), "t = torch.zeros(1)"])),
            )
            .lacks("CUDA object", any_object),
        ],
        Behaviour::SavesTensors { obj, file } => {
            let save = |what: &str| {
                p(py(&[
                    "model = torch.nn.Linear(2, 2)",
                    &call(x, &[(obj, what), (file, "'ckpt.pt'")]),
                ]))
            };
            vec![
                Probe::new("host values are saved host-only", save("[1, 2]"))
                    .has("a host-only save", saved(true)),
                Probe::new(
                    "a CUDA tensor is not host-only",
                    save("torch.zeros(1, device='cuda:1')"),
                )
                .has("a save with CUDA", saved(false)),
            ]
        }
        Behaviour::LoadsTensors { map_location, file } => {
            let load = |to: &str| {
                p(py(&[&format!(
                    "t = {}",
                    call(x, &[(file, "'ckpt.pt'"), (map_location, to)])
                )]))
            };
            vec![
                Probe::new(
                    "restores to the device `map_location` names",
                    load("'cuda:1'"),
                )
                .has("a tensor on cuda:1", object(CUDA_1)),
                Probe::new(
                    "a CPU `map_location` loads nothing onto CUDA",
                    load("'cpu'"),
                )
                .lacks("CUDA object", any_object)
                .lacks("unmapped load", unmapped),
                Probe::new(
                    "no `map_location` is an unmapped load",
                    p(py(&[&format!(
                        "t = {}",
                        call(x, &[(Param::pos(0, "f"), "'ckpt.pt'")])
                    )])),
                )
                .has("unmapped load", unmapped),
                Probe::new(
                    "the load names the file it reads",
                    p(py(&[&format!("t = {}", call(x, &[(file, "ckpt_path")]))])),
                )
                .has(
                    "an unmapped load of `ckpt_path`",
                    |e| matches!(e, Effect::UnmappedLoad { file: Some(f), .. } if &**f == "ckpt_path"),
                ),
                Probe::new(
                    "a `**kwargs` may carry the mapping",
                    p(py(&[
                        "def load(path, **kw):",
                        &format!(
                            "    return {}, **kw)",
                            call(x, &[(Param::pos(0, "f"), "path")]).trim_end_matches(')')
                        ),
                    ])),
                )
                .lacks("unmapped load", unmapped),
            ]
        }
        Behaviour::LoadsModel {
            device,
            device_map,
            cuda_when_available,
            auto,
        } => loads_model(c, device, device_map, cuda_when_available, auto)?,
        Behaviour::LoadsOnProviders { providers, cuda } => {
            if cuda.is_empty() {
                return Err("no provider names CUDA".into());
            }
            let load = |list: &str| {
                let args = [(Param::pos(0, "path"), "'model.onnx'"), (providers, list)];
                p(py(&[&format!("s = {}", call(x, &args))]))
            };
            let mut out = Vec::new();
            for name in cuda {
                out.push(
                    Probe::new(
                        format!("`{name}` loads onto CUDA"),
                        load(&format!("['{name}', 'CPUExecutionProvider']")),
                    )
                    .has("a session on the current device", object(CURRENT)),
                );
                out.push(
                    Probe::new(
                        format!("`{name}` with options loads onto CUDA"),
                        load(&format!("[('{name}', {{'device_id': 0}})]")),
                    )
                    .has("a session on the current device", object(CURRENT)),
                );
            }
            out.push(
                Probe::new("the CPU provider alone", load("['CPUExecutionProvider']"))
                    .lacks("CudaInit", any_init),
            );
            out.push(
                Probe::new("no providers", p(py(&[&format!("s = {x}('model.onnx')")])))
                    .lacks("CudaInit", any_init),
            );
            out
        }
        Behaviour::ReadsGlobalRank => vec![
            Probe::new(
                "a global rank as a device index is reported",
                p(py(&[&format!("v = {x}()"), "t = torch.zeros(1, device=v)"])),
            )
            .has("a tensor on a per-worker device", object(PER_WORKER))
            .has("a device from the global rank", from_global_rank),
            Probe::new(
                "modulo the device count it is a local index",
                p(py(&[
                    &format!("v = {x}() % torch.cuda.device_count()"),
                    "torch.cuda.set_device(v)",
                ])),
            )
            .lacks("a device from the global rank", from_global_rank),
        ],
        Behaviour::ReadsRank => vec![Probe::new(
            "returns a per-worker rank",
            p(py(&[&format!("v = {x}()"), "t = torch.zeros(1, device=v)"])),
        )
        .has("a tensor on a per-worker device", object(PER_WORKER))],
        Behaviour::ProcessGroup {
            backend,
            device_id,
            world_size,
        } => {
            let create = |args: &[(Param, &str)]| p(py(&[&call(x, args)]));
            vec![
                Probe::new("creates an NCCL group", create(&[(backend, "'nccl'")])).has(
                    "an NCCL group, no device given",
                    group(Backend::Nccl, false),
                ),
                Probe::new(
                    "with `device_id`, names the rank's device",
                    create(&[(backend, "'nccl'"), (device_id, "torch.device('cuda', 0)")]),
                )
                .has(
                    "an NCCL group, its device given",
                    group(Backend::Nccl, true),
                ),
                Probe::new("a CPU backend", create(&[(backend, "'gloo'")]))
                    .has("a CPU group", group(Backend::Cpu, false)),
                Probe::new("no backend: the default", create(&[]))
                    .has("a default-backend group", group(Backend::Default, false)),
                Probe::new(
                    "a world of one process is no group",
                    create(&[(backend, "'nccl'"), (world_size, "1")]),
                )
                .lacks("ProcessGroupCreated", any_group),
            ]
        }
        Behaviour::Subgroup { backend } => {
            let barrier = |b: &str| {
                p(py(&[
                    &format!("g = {}", call(x, &[(backend, b)])),
                    "torch.distributed.barrier(group=g)",
                ]))
            };
            vec![
                Probe::new(
                    "a CPU subgroup's collectives touch no GPU",
                    barrier("'gloo'"),
                )
                .has("a collective on an explicit group", collective(None, true)),
                Probe::new(
                    "an NCCL subgroup's collectives use the GPU",
                    barrier("'nccl'"),
                )
                .has(
                    "a collective on the current device",
                    collective(None, false),
                ),
            ]
        }
        Behaviour::Collective { device, group, .. } => collective_probes(c, device, group),
        Behaviour::Returns(target) => returns(c, target)?,
        Behaviour::Object => object_rows(c)?,
        Behaviour::Answers(answer) => {
            let branches =
                |then: &str, other: &str| p(format!("if {x}():\n    {then}\nelse:\n    {other}\n"));
            let cuda = "y = torch.zeros(1, device='cuda:1')";
            let host = "y = 0";
            let (taken, not_taken) = match answer {
                true => (branches(cuda, host), branches(host, cuda)),
                false => (branches(host, cuda), branches(cuda, host)),
            };
            vec![
                Probe::new("the branch its answer takes runs", taken)
                    .has("a CUDA object", any_object),
                Probe::new("the other branch does not", not_taken).lacks("CUDA object", any_object),
            ]
        }
        Behaviour::StartsChildren { api, layer } => starts_children(c, api, layer),
        Behaviour::GetContext { layer, method } => {
            let module = layer.module();
            let run = |code: &str| {
                p(format!(
                    "{WORKERS}ctx = {}\n{}",
                    call(x, &[(method, "'spawn'")]),
                    main_guard(code)
                ))
            };
            vec![
                Probe::new(
                    format!("its `Process` (`{module}.Process`) uses the method named"),
                    run("ctx.Process(target=work, args=('cuda:1',)).start()"),
                )
                .has(
                    "a spawned child",
                    child_by(ChildKind::ProcessStart, StartMethod::Spawn),
                )
                .has("the child running `work`", runs("work")),
                Probe::new(
                    format!("its `Pool` (`{module}.Pool`) uses the method named"),
                    run("pool = ctx.Pool(2)\npool.map(work, ['cuda:1'])"),
                )
                .has(
                    "a spawned pool child",
                    child_by(ChildKind::Pool, StartMethod::Spawn),
                ),
            ]
        }
        Behaviour::FixesStartMethod {
            allow_none,
            creates_objects,
            makes,
            ..
        } => {
            let fixed = move |e: &Effect| matches!(e, Effect::StartMethodFixed { creates_objects: c, .. } if *c == creates_objects);
            let mut probes = vec![Probe::new(
                "uses the default context",
                p(format!("import torch\n{}\n", call(x, &[]))),
            )
            .has("StartMethodFixed", fixed)];
            probes.extend(makes.map(|carrier| carries(c, carrier)));
            if let Some(allow_none) = allow_none {
                probes.push(
                    Probe::new(
                        "asks without fixing",
                        p(format!(
                            "import torch\n{}\n",
                            call(x, &[(allow_none, "True")])
                        )),
                    )
                    .lacks("StartMethodFixed", fixed),
                );
            }
            probes
        }
        Behaviour::SetStartMethod { layer, method, .. } => {
            let module = layer.module();
            let start = format!("{module}.Process(target=work, args=('cuda:1',)).start()");
            vec![Probe::new(
                format!("sets `{module}`'s start method"),
                p(format!(
                    "{WORKERS}import {module}\n{}\n{}",
                    call(x, &[(method, "'spawn'")]),
                    main_guard(&start)
                )),
            )
            .has(
                "StartMethodSet to spawn at module scope",
                start_set(StartMethod::Spawn),
            )
            .has(
                "a spawned child",
                child_by(ChildKind::ProcessStart, StartMethod::Spawn),
            )]
        }
        Behaviour::MakesCarrier(carrier) => vec![carries(c, carrier)],
        Behaviour::HandlesRequests => {
            let handler = || {
                p(py(&[
                    "torch.cuda.init()",
                    &format!("@{x}('/score')"),
                    "def score():",
                    "    return torch.zeros(1, device='cuda:1')",
                ]))
            };
            let preloading = Settings {
                server_preloads: true,
                ..Settings::default()
            };
            vec![
                Probe::new("a preloading server forks the handler's workers", handler())
                    .settings(preloading)
                    .has(
                        "a forked server worker inheriting CUDA",
                        inheriting(ChildKind::ServerWorker),
                    ),
                Probe::new(
                    "a server that imports in each worker forks nothing",
                    handler(),
                )
                .lacks("server worker child", child(ChildKind::ServerWorker)),
            ]
        }
        Behaviour::ParallelEngine {
            parallel,
            method_env,
            package,
            spawns_since,
            in_child_since,
            in_process_env: (key, in_process),
            in_process_arg: (arg, in_process_value),
        } => {
            let several = format!("{x}(model='m', {}=2)", parallel[0].name);
            let before_child = Settings {
                requirements: gpulint_python::requirements::Requirements::parse([format!(
                    "{package}=={}.{}.0",
                    in_child_since[0],
                    in_child_since[1].saturating_sub(1),
                )
                .as_str()]),
                ..Settings::default()
            };
            let old = Settings {
                requirements: gpulint_python::requirements::Requirements::parse([format!(
                    "{package}=={}.{}.{}",
                    spawns_since[0],
                    spawns_since[1],
                    spawns_since[2].saturating_sub(1)
                )
                .as_str()]),
                ..Settings::default()
            };
            vec![
                Probe::new(
                    "one GPU, a version that runs the engine here: no workers",
                    p(py(&[&format!("e = {x}(model='m')")])),
                )
                .settings(before_child)
                .has("a CUDA object", object(CURRENT))
                .lacks("engine workers", child(ChildKind::EngineWorkers)),
                Probe::new(
                    "one GPU, a recent or unknown version: the engine in a child",
                    p(py(&[&format!("e = {x}(model='m')")])),
                )
                .has("the engine's process", child(ChildKind::EngineWorkers))
                .lacks("a CUDA object in the caller", object(CURRENT)),
                Probe::new(
                    format!("`{key}={in_process}` keeps the engine here"),
                    p(py(&[
                        &format!("os.environ['{key}'] = '{in_process}'"),
                        &format!("e = {x}(model='m')"),
                    ])),
                )
                .has("a CUDA object", object(CURRENT))
                .lacks("engine workers", child(ChildKind::EngineWorkers)),
                Probe::new(
                    format!("`{}=\"{in_process_value}\"` starts no process", arg.name),
                    p(py(&[&format!(
                        "e = {x}(model='m', {}=2, {}='{in_process_value}')",
                        parallel[0].name, arg.name
                    )])),
                )
                .has("a CUDA object", object(CURRENT))
                .lacks("engine workers", child(ChildKind::EngineWorkers)),
                Probe::new(
                    "several GPUs after CUDA, a recent or unknown version: spawn",
                    p(py(&["torch.cuda.init()", &format!("e = {several}")])),
                )
                .has(
                    "spawned engine workers",
                    child_by(ChildKind::EngineWorkers, StartMethod::Spawn),
                ),
                Probe::new(
                    "several GPUs, a version before the switch: fork",
                    p(py(&["torch.cuda.init()", &format!("e = {several}")])),
                )
                .settings(old.clone())
                .has(
                    "forked engine workers inheriting CUDA",
                    inheriting(ChildKind::EngineWorkers),
                ),
                Probe::new(
                    format!("`{method_env}` decides"),
                    p(py(&[
                        &format!("os.environ['{method_env}'] = 'spawn'"),
                        "torch.cuda.init()",
                        &format!("e = {several}"),
                    ])),
                )
                .settings(old)
                .has(
                    "spawned engine workers",
                    child_by(ChildKind::EngineWorkers, StartMethod::Spawn),
                ),
            ]
        }
        Behaviour::ForkedTask => vec![
            Probe::new(
                "runs the task in a child forked after the module's import",
                p(py(&[
                    "torch.cuda.init()",
                    &format!("@{x}"),
                    "def work():",
                    "    return torch.zeros(1, device='cuda:1')",
                ])),
            )
            .has(
                "a forked task worker child inheriting CUDA",
                inheriting(ChildKind::TaskWorker),
            ),
            Probe::new(
                "a function defined in a function is not a task of the module",
                p(py(&[
                    "def outer():",
                    &format!("    @{x}"),
                    "    def work():",
                    "        return 1",
                    "    return work",
                ])),
            )
            .lacks("task worker child", child(ChildKind::TaskWorker)),
        ],
        Behaviour::Waits => {
            vec![
                Probe::new("blocks for other processes", p(py(&[&format!("{x}(1)")])))
                    .has("WaitedForOthers", waited),
            ]
        }
        Behaviour::RunsCommand { .. } => vec![
            Probe::new(
                "a launcher's command without a node count launches on one node",
                p(py(&[&format!(
                    "{x}(['torchrun', '--nproc-per-node=2', 'train.py'])"
                )])),
            )
            .has("a launch on one node", launched(Nodes::One)),
            Probe::new(
                "a launcher's command on two nodes launches on several",
                p(py(&[&format!("{x}('torchrun --nnodes 2 train.py')")])),
            )
            .has("a launch on several nodes", launched(Nodes::Several)),
            Probe::new(
                "another command launches nothing",
                p(py(&[&format!("{x}(['ls', '-l'])")])),
            )
            .lacks("a launch", any_launch),
        ],
        Behaviour::EndsProcess => vec![Probe::new(
            "nothing after it runs",
            p(py(&[
                "torch.cuda.init()",
                &format!("{x}()"),
                "t = torch.zeros(1, device='cuda:1')",
            ])),
        )
        .has("the CudaInit before it (control)", init_at(Init::Context))
        .lacks("CUDA object", any_object)],
        Behaviour::Loader { .. } => loader(c, does),
        Behaviour::LibraryDataset { transforms } => {
            if transforms.is_empty() {
                return Err("a library dataset with no transform keywords".into());
            }
            let iterate = py(&[
                "loader = torch.utils.data.DataLoader(ds, num_workers=2)",
                "for b in loader:",
                "    pass",
            ]);
            transforms
                .iter()
                .map(|k| {
                    let ds = format!("ds = {x}('root', {k}=tf)\n{iterate}");
                    Probe::new(
                        format!("`{k}` runs in the loader's workers"),
                        p(format!("def tf(v):\n    return v\n\n{}", main_guard(&ds))),
                    )
                    .has("the child running `tf`", runs("tf"))
                })
                .collect()
        }
        Behaviour::IndexesArguments => {
            let label = format!("{}.__getitem__", short(&c.name));
            let run = |lines: &[&str]| {
                let mut body = py(lines);
                body.push_str(&py(&[
                    "loader = torch.utils.data.DataLoader(ds, num_workers=2)",
                    "for b in loader:",
                    "    pass",
                ]));
                p(main_guard(&body))
            };
            vec![
                Probe::new(
                    "its CUDA tensors are read in the loader's workers",
                    run(&[
                        "x = torch.zeros(4, device='cuda:1')",
                        &format!("ds = {x}(x)"),
                    ]),
                )
                .has(&format!("the child running `{label}`"), runs(&label))
                .holds(
                    "a use of `x` after the fork",
                    after(inheriting(ChildKind::DataLoader), uses("x")),
                ),
                Probe::new(
                    "so are those of a dataset of its kind inside it",
                    run(&[
                        "x = torch.zeros(4, device='cuda:1')",
                        &format!("inner = {x}(x)"),
                        &format!("ds = {x}(inner)"),
                    ]),
                )
                .holds(
                    "a use of `x` after the fork",
                    after(inheriting(ChildKind::DataLoader), uses("x")),
                ),
                Probe::new(
                    "CPU tensors are not CUDA uses",
                    run(&["x = torch.zeros(4)", &format!("ds = {x}(x)")]),
                )
                .has(
                    "a forked loader child (control)",
                    child(ChildKind::DataLoader),
                )
                .lacks("use of `x`", uses("x")),
            ]
        }
        Behaviour::ForkingDataset => {
            let (name, function, with_rank) = dataset_map();
            let map = call(
                &format!("ds.{name}"),
                &[(function, "fn"), (with_rank, "True")],
            );
            vec![Probe::new(
                format!("its `{name}` runs the function"),
                p(py(&[
                    "def fn(x, v):",
                    "    t = torch.zeros(1, device=v)",
                    &format!("ds = {x}('data')"),
                    &map,
                ])),
            )
            .has("a tensor on the rank's device", object(PER_WORKER))]
        }
        Behaviour::DictOfKeywords => vec![Probe::new(
            "holds its keywords for `**`",
            p(py(&[&format!(
                "t = torch.zeros(1, **{x}(device='cuda:1'))"
            )])),
        )
        .has("a tensor on cuda:1", object(CUDA_1))],
        Behaviour::Partial => vec![Probe::new(
            "binds leading arguments",
            p(py(&[
                "def make(v):",
                "    return torch.zeros(1, device=v)",
                &format!("f = {x}(make, 'cuda:1')"),
                "t = f()",
            ])),
        )
        .has("a tensor on cuda:1", object(CUDA_1))],
        Behaviour::Compose { steps } => vec![Probe::new(
            "calls each step",
            p(py(&[
                "def step(v):",
                "    return torch.zeros(1, device=v)",
                &format!("tf = {}", call(x, &[(steps, "[step]")])),
                "t = tf('cuda:1')",
            ])),
        )
        .has("a tensor on cuda:1", object(CUDA_1))],
        Behaviour::ReadsEnv { key } => {
            let read = |k: &str| format!("v = {}", call(x, &[(key, k)]));
            vec![
                Probe::new(
                    "reads a rank variable",
                    p(py(&[&read("'LOCAL_RANK'"), "t = torch.zeros(1, device=v)"])),
                )
                .has("a tensor on a per-worker device", object(PER_WORKER)),
                Probe::new(
                    "reads what the program wrote",
                    p(py(&[
                        "os.environ['WHERE'] = 'cuda:1'",
                        &read("'WHERE'"),
                        "t = torch.zeros(1, device=v)",
                    ])),
                )
                .has("a tensor on cuda:1", object(CUDA_1)),
            ]
        }
        Behaviour::WritesEnv { key, value } => vec![Probe::new(
            "writes the environment",
            p(py(&[
                &call(x, &[(key, "'WHERE'"), (value, "'cuda:1'")]),
                "v = os.environ['WHERE']",
                "t = torch.zeros(1, device=v)",
            ])),
        )
        .has("EnvWritten WHERE=cuda:1", written_as("WHERE", "cuda:1"))
        .has("a tensor on the device read back", object(CUDA_1))],
        Behaviour::RemovesEnv { key } => vec![Probe::new(
            "removes what the program wrote",
            p(py(&[
                "os.environ['WHERE'] = 'cuda:1'",
                &call(x, &[(key, "'WHERE'")]),
                "v = os.environ.get('WHERE', 'cpu')",
                "t = torch.zeros(1, device=v)",
            ])),
        )
        .has(
            "EnvWritten WHERE=cuda:1 (control)",
            written_as("WHERE", "cuda:1"),
        )
        .lacks("a tensor on cuda:1", object(CUDA_1))],
        Behaviour::Environ => vec![
            Probe::new(
                "written by subscript",
                p(py(&[&format!("{x}['WHERE'] = 'cuda:1'")])),
            )
            .has("EnvWritten WHERE", written("WHERE")),
            Probe::new(
                "read by subscript",
                p(py(&[
                    &format!("v = {x}['LOCAL_RANK']"),
                    "t = torch.zeros(1, device=v)",
                ])),
            )
            .has("a tensor on a per-worker device", object(PER_WORKER)),
        ],
        Behaviour::Converts { to_int } => {
            let constant = if to_int { "'1'" } else { "'cuda:1'" };
            let convert = |arg: &str| {
                p(py(&[
                    &format!("v = {x}({arg})"),
                    "t = torch.zeros(1, device=v)",
                ]))
            };
            vec![
                Probe::new("keeps a rank a rank", convert("os.environ['LOCAL_RANK']"))
                    .has("a tensor on a per-worker device", object(PER_WORKER)),
                Probe::new(format!("converts {constant}"), convert(constant))
                    .has("a tensor on cuda:1", object(CUDA_1)),
            ]
        }
        Behaviour::ToHost => vec![Probe::new(
            "copies a tensor's value to the host",
            p(py(&[
                "r = torch.zeros(1, device='cuda:1')",
                &format!("y = {x}(r)"),
                "print(y)",
            ])),
        )
        .has("a use of `r` (control)", uses("r"))
        .lacks("use of `y`", uses("y"))],
        Behaviour::Iterates(shape) => {
            let each = match shape {
                Iteration::Items => format!("for v in {x}(devs):"),
                Iteration::Enumerate => format!("for _, v in {x}(devs):"),
                Iteration::Zip => format!("for v, _ in {x}(devs, devs):"),
                Iteration::First => format!("for v in [{x}(iter(devs))]:"),
            };
            vec![Probe::new(
                format!("yields its arguments' items ({shape:?})"),
                p(py(&[
                    "devs = ['cuda:1']",
                    &each,
                    "    t = torch.zeros(1, device=v)",
                ])),
            )
            .has("a tensor on cuda:1", object(CUDA_1))]
        }
        Behaviour::CallsArgument(param) => vec![Probe::new(
            "calls the function it is given",
            p(py(&[
                "def make():",
                "    return 'cuda:1'",
                &format!("v = {}", call(x, &[(param, "make")])),
                "t = torch.zeros(1, device=v)",
            ])),
        )
        .has("a tensor on the device it returned", object(CUDA_1))],
        Behaviour::Inspects => vec![Probe::new(
            "does not iterate a loader",
            p(format!(
                "{DATASET}{}",
                py(&[
                    "loader = torch.utils.data.DataLoader(Items(), num_workers=2)",
                    &format!("n = {x}(loader)"),
                    "torch.cuda.init()",
                ])
            )),
        )
        .has("the CudaInit after it (control)", init_at(Init::Context))
        .lacks("child", any_child)],
        Behaviour::Memoises => {
            let memo = |decorator: &str| {
                p(py(&[
                    &format!("@{decorator}"),
                    "def get():",
                    "    return torch.zeros(1, device='cuda:1')",
                    "def use():",
                    "    m = get()",
                    "    m.sum()",
                    "use()",
                ]))
            };
            vec![
                Probe::new("its result is a global", memo(x))
                    .has("a use of the global `get()`", global_use("get()")),
                Probe::new(
                    "called with arguments too",
                    memo(&format!("{x}(maxsize=None)")),
                )
                .has("a use of the global `get()`", global_use("get()")),
            ]
        }
        Behaviour::EntersAtYield => {
            let guarded = |read: &str| {
                p(py(&[
                    &format!("@{x}"),
                    "def placed():",
                    "    os.environ['WHERE'] = 'cuda:1'",
                    "    try:",
                    "        yield",
                    "    finally:",
                    "        os.environ.pop('WHERE')",
                    "def use():",
                    "    with placed():",
                    &format!("        {read}"),
                    "use()",
                ]))
            };
            vec![
                Probe::new(
                    "the block runs before the code after the yield",
                    guarded("t = torch.zeros(1, device=os.environ['WHERE'])"),
                )
                .has("a tensor on cuda:1", object(CUDA_1)),
                Probe::new(
                    "the code after the yield runs when the block ends",
                    p(py(&[
                        &format!("@{x}"),
                        "def placed():",
                        "    os.environ['WHERE'] = 'cuda:1'",
                        "    yield",
                        "    os.environ['WHERE'] = 'cpu'",
                        "with placed():",
                        "    pass",
                        "t = torch.zeros(1, device=os.environ['WHERE'])",
                    ])),
                )
                .has("EnvWritten WHERE=cpu", written_as("WHERE", "cpu"))
                .lacks("a tensor on cuda:1", object(CUDA_1)),
            ]
        }
        Behaviour::NarrowsVisibility { param } => {
            let task = |args: &str| {
                p(py(&[
                    &format!("@{x}{args}"),
                    "def task():",
                    "    t = torch.zeros(1, device='cuda')",
                ]))
            };
            vec![
                Probe::new(
                    format!("with `{param}`, the worker sees only its GPUs"),
                    task(&format!("({param}=1)")),
                )
                .has("DeviceBound by narrowing", bound(Binding::Narrowed, false)),
                Probe::new(format!("without `{param}`, nothing is narrowed"), task(""))
                    .has("the task's tensor (control)", any_object)
                    .lacks("DeviceBound", any_bound),
            ]
        }
        Behaviour::Unpicklable => {
            let held_by_target = |method: &str| {
                p(py(&[
                    "import multiprocessing",
                    "class Job:",
                    "    def __init__(self):",
                    &format!("        self.held = {x}()"),
                    "    def run(self):",
                    "        pass",
                    &main_guard(&format!(
                        "multiprocessing.get_context('{method}').Process(target=Job().run).start()"
                    )),
                ]))
            };
            vec![
                Probe::new(
                    "an object holding it cannot be pickled for a spawned child",
                    held_by_target("spawn"),
                )
                .has("the held object, reported at the handover", holds("held")),
                Probe::new(
                    "the report says how the child starts (fork: nothing is pickled)",
                    held_by_target("fork"),
                )
                .has(
                    "the handover, under fork",
                    |e| matches!(e, Effect::UnserializableSent(s) if s.start_method == StartMethod::Fork),
                ),
            ]
        }
    })
}

/// A value handed to a child that holds, in attribute `attr`, an object pickle refuses.
fn holds(attr: &'static str) -> impl Fn(&Effect) -> bool {
    move |e| match e {
        Effect::UnserializableSent(sent) => {
            matches!(&sent.why, Unserializable::Holds { attr: a, .. } if &**a == attr)
        }
        _ => false,
    }
}

/// Called by the alias's name, the row does what its target does.
/// What `carrier` makes carries a CUDA tensor to another process.
fn carries(c: &Callee, carrier: Carrier) -> Probe {
    let (send, channel) = send_through(carrier);
    Probe::new(
        format!("makes a {carrier:?}"),
        program(
            c,
            &format!(
                "import torch\nc = {}()\nt = torch.zeros(1, device='cuda:1')\n{send}\n",
                c.expr
            ),
        ),
    )
    .has(
        &format!("CudaObjectSent through {channel:?}"),
        sent(channel),
    )
}

fn alias(c: &Callee, to: &str) -> Result<Vec<Probe>, String> {
    let target = libraries::rows()
        .find(|r| r.name == to)
        .ok_or_else(|| format!("aliases `{to}`, which is not a row"))?;
    if let Behaviour::Alias(again) = target.does {
        return Err(format!("aliases `{to}`, itself an alias of `{again}`"));
    }
    let found = libraries::lookup(&c.name);
    if found != Some((target.does, target.reason)) {
        return Err(format!("does not look up as `{to}`: {found:?}"));
    }
    probes(c, target.does)
}

fn inits_cuda(
    c: &Callee,
    level: Init,
    returns_object: bool,
    safe_in_child: bool,
    unless_env: Option<(&'static str, &'static str)>,
) -> Vec<Probe> {
    let x = c.expr.as_str();
    let mut out = Vec::new();
    if level == Init::None {
        out.push(
            Probe::new(
                "touches no CUDA state, returns no CUDA object",
                program(
                    c,
                    &py(&[
                        &format!("{x}()"),
                        "t = torch.zeros(1, device='cuda:1')",
                        &format!("y = {x}(t)"),
                        "print(y)",
                    ]),
                ),
            )
            .holds("one CudaInit, the tensor's", |e| {
                e.iter().filter(|e| any_init(e)).count() == 1
            })
            .has("a use of `t` (control)", uses("t"))
            .lacks("use of `y`", uses("y")),
        );
    } else {
        let fails = level == Init::Context || !safe_in_child;
        let probe = Probe::new(
            format!("initialises CUDA to {level:?}"),
            program(c, &py(&[&format!("{x}()")])),
        )
        .has(
            &format!("CudaInit at {level:?}, fails_in_child {fails}"),
            init_failing(level, fails),
        );
        out.push(if returns_object {
            probe.has("a CUDA object on the current device", object(CURRENT))
        } else {
            probe.lacks("CUDA object", any_object)
        });
    }
    if let Some((key, value)) = unless_env {
        out.push(
            Probe::new(
                format!("does nothing while {key}={value}"),
                program(
                    c,
                    &py(&[
                        &format!("os.environ['{key}'] = '{value}'"),
                        &format!("{x}()"),
                    ]),
                ),
            )
            .has("the write (control)", written(key))
            .lacks("CudaInit", any_init),
        );
    }
    out
}

fn under_launcher(c: &Callee, init: Init, owner: bool) -> Vec<Probe> {
    let x = c.expr.as_str();
    let launched = Probe::new(
        "binds the rank's device under a launcher",
        program(
            c,
            &py(&["v = os.environ['LOCAL_RANK']", &format!("o = {x}()")]),
        ),
    )
    .has("DeviceBound", bound(Binding::Call, false));
    let launched = if init > Init::None {
        launched.has(&format!("CudaInit at {init:?}"), init_at(init))
    } else {
        launched.lacks("CudaInit", any_init)
    };
    let mut out = vec![
        launched,
        Probe::new(
            "binds nothing outside a launcher",
            program(c, &py(&[&format!("o = {x}()")])),
        )
        .lacks("DeviceBound", any_bound),
    ];
    if owner {
        out.push(
            Probe::new(
                "returns an owner whose `device` is the rank's",
                program(
                    c,
                    &py(&[
                        &format!("o = {x}()"),
                        "v = o.device",
                        "t = torch.zeros(1, device=v)",
                    ]),
                ),
            )
            .has("a tensor on a per-worker device", object(PER_WORKER)),
        );
    }
    out
}

fn loads_model(
    c: &Callee,
    device: Option<Param>,
    device_map: Option<Param>,
    cuda_when_available: bool,
    auto: Option<&str>,
) -> Result<Vec<Probe>, String> {
    let model = Param::pos(0, "model");
    let load = |arg: Option<(Param, &str)>| {
        let mut args = vec![(model, "'m'")];
        args.extend(arg);
        program(c, &py(&[&format!("m = {}", call(&c.expr, &args))]))
    };
    let mut out = Vec::new();
    if let Some(device) = device {
        out.push(
            Probe::new(
                "loads onto the device named",
                load(Some((device, "'cuda:1'"))),
            )
            .has("a model on cuda:1", object(CUDA_1)),
        );
        out.push(
            Probe::new(
                "a negative device index is the CPU",
                load(Some((device, "-1"))),
            )
            .lacks("CUDA object", any_object),
        );
        out.push(
            Probe::new("stays on the CPU when told", load(Some((device, "'cpu'"))))
                .lacks("CUDA object", any_object),
        );
        if let Some(auto) = auto {
            out.push(
                Probe::new(
                    format!("`'{auto}'` loads onto CUDA when it is available"),
                    load(Some((device, &format!("'{auto}'")))),
                )
                .has("a model on the current device", object(CURRENT)),
            );
        }
    } else if auto.is_some() {
        return Err("`auto` without a `device` parameter".into());
    }
    if let Some(map) = device_map {
        out.push(
            Probe::new(
                "loads onto CUDA by `device_map`",
                load(Some((map, "'auto'"))),
            )
            .has("a model on the current device", object(CURRENT)),
        );
    }
    out.push(if cuda_when_available {
        Probe::new("loads onto CUDA when it is available", load(None))
            .has("a model on the current device", object(CURRENT))
    } else {
        Probe::new("stays on the CPU unless told", load(None)).lacks("CUDA object", any_object)
    });
    Ok(out)
}

fn collective_probes(c: &Callee, device: &[Param], group: Param) -> Vec<Probe> {
    let x = c.expr.as_str();
    let name = short(libraries::canonical(&c.name)).to_string();
    let run = |explicit: bool| collective(Some(name.clone()), explicit);
    let mut out = vec![Probe::new(
        "runs on the current device",
        program(
            c,
            &py(&[
                "torch.distributed.init_process_group('nccl')",
                &format!("{x}()"),
            ]),
        ),
    )
    .has("the collective on the current device", run(false))];
    for &d in device {
        out.push(
            Probe::new(
                format!("runs on the device `{}` names", d.name),
                program(c, &py(&[&call(x, &[(d, "[0]")])])),
            )
            .has("the collective on an explicit device", run(true)),
        );
    }
    out.push(
        Probe::new(
            "on a CPU group touches no GPU",
            program(
                c,
                &py(&[
                    "g = torch.distributed.new_group(backend='gloo')",
                    &call(x, &[(group, "g")]),
                ]),
            ),
        )
        .has("the collective on an explicit group", run(true)),
    );
    out
}

/// Called through what it returns (`m = torch.get_device_module()`, then `m.device_count()`), each
/// row under the returned name does what it says.
/// An object's rows hold when it is first bound to a name of the program's own.
fn object_rows(c: &Callee) -> Result<Vec<Probe>, String> {
    let under = format!("{}.", c.name);
    let rows: Vec<&Row> = libraries::rows()
        .filter(|r| r.name.starts_with(&under))
        .collect();
    if rows.is_empty() {
        return Err(format!(
            "an object under which no row is named: `{}`",
            c.name
        ));
    }
    let mut out = Vec::new();
    for row in rows {
        let through = Callee {
            name: row.name.to_string(),
            setup: format!("{}m = {}\n", c.setup, c.expr),
            expr: format!("m.{}", &row.name[under.len()..]),
        };
        let label = format!("through the object, `{}`", row.name);
        out.extend(
            probes(&through, row.does)?
                .into_iter()
                .map(|p| p.labelled(&label)),
        );
    }
    Ok(out)
}

fn returns(c: &Callee, target: &str) -> Result<Vec<Probe>, String> {
    let under = format!("{target}.");
    let rows: Vec<&Row> = libraries::rows()
        .filter(|r| r.name.starts_with(&under))
        .collect();
    if rows.is_empty() {
        return Err(format!("returns `{target}`, under which no row is named"));
    }
    let mut out = Vec::new();
    for row in rows {
        let through = Callee {
            name: row.name.to_string(),
            setup: format!("{}m = {}()\n", c.setup, c.expr),
            expr: format!("m.{}", &row.name[under.len()..]),
        };
        let label = format!("returns what has `{}`", row.name);
        out.extend(
            probes(&through, row.does)?
                .into_iter()
                .map(|p| p.labelled(&label)),
        );
    }
    Ok(out)
}

fn starts_children(c: &Callee, api: ProcessApi, layer: Layer) -> Vec<Probe> {
    let x = c.expr.as_str();
    let module = layer.module();
    let p = |body: String| program(c, &format!("{WORKERS}{body}"));
    // Under a spawn default, from `module`.
    let spawning = |body: &str| {
        p(format!(
            "import {module}\n{module}.set_start_method('spawn')\n{}",
            main_guard(body)
        ))
    };
    let obeys = format!("obeys `{module}.set_start_method`");
    match api {
        ProcessApi::Process { target, args } => {
            let start = format!(
                "{}.start()",
                call(x, &[(target, "work"), (args, "('cuda:1',)")])
            );
            let subclass = py(&[
                &format!("class W({x}):"),
                "    def run(self):",
                "        work('cuda:1')",
            ]);
            vec![
                Probe::new("forks at `.start()`", p(main_guard(&start)))
                    .has(
                        "a forked child",
                        child_by(ChildKind::ProcessStart, StartMethod::Fork),
                    )
                    .has("the child running `work`", runs("work"))
                    .has("the child's tensor on cuda:1", object(CUDA_1)),
                Probe::new(obeys, spawning(&start)).has(
                    "a spawned child",
                    child_by(ChildKind::ProcessStart, StartMethod::Spawn),
                ),
                Probe::new(
                    "a subclass's `run` runs in the child",
                    p(format!("{subclass}{}", main_guard("W().start()"))),
                )
                .has("a child", child(ChildKind::ProcessStart))
                .has("the child running `W.run`", runs("W.run")),
            ]
        }
        ProcessApi::Pool {
            initializer,
            initargs,
            max_tasks,
        } => {
            let processes = Param::pos(0, "processes");
            let with_init = py(&[
                &format!(
                    "pool = {}",
                    call(
                        x,
                        &[
                            (processes, "2"),
                            (initializer, "init"),
                            (initargs, "('cuda:1',)")
                        ]
                    )
                ),
                "pool.map(work, ['cuda:2'])",
            ]);
            let later = |arg: Option<(Param, &str)>| {
                let mut args = vec![(processes, "2")];
                args.extend(arg);
                main_guard(&py(&[
                    &format!("pool = {}", call(x, &args)),
                    "torch.cuda.init()",
                    "pool.map(work, ['cuda:1'])",
                ]))
            };
            vec![
                Probe::new(
                    "forks workers that run the initializer",
                    p(main_guard(&with_init)),
                )
                .has(
                    "a forked pool child",
                    child_by(ChildKind::Pool, StartMethod::Fork),
                )
                .has("a child running `init`", runs("init"))
                .has("a child running `work`", runs("work"))
                .has("the initializer's tensor on cuda:1", object(CUDA_1))
                .has("the task's tensor on cuda:2", object(CUDA_2)),
                Probe::new("forks its workers at construction", p(later(None)))
                    .lacks("worker inheriting CUDA", inheriting(ChildKind::Pool)),
                Probe::new(
                    format!("with `{}`, forks workers again later", max_tasks.name),
                    p(later(Some((max_tasks, "1")))),
                )
                .has("a worker inheriting CUDA", inheriting(ChildKind::Pool)),
                Probe::new(obeys, spawning(&with_init)).has(
                    "a spawned pool child",
                    child_by(ChildKind::Pool, StartMethod::Spawn),
                ),
            ]
        }
        ProcessApi::Executor {
            context,
            initializer,
            initargs,
        } => {
            let submit = |args: &[(Param, &str)]| {
                py(&[
                    &format!("ex = {}", call(x, args)),
                    "ex.submit(work, 'cuda:1')",
                ])
            };
            let with_init = submit(&[
                (Param::pos(0, "max_workers"), "2"),
                (initializer, "init"),
                (initargs, "('cuda:2',)"),
            ]);
            let spawn_context = format!(
                "import multiprocessing\n{}",
                main_guard(&submit(&[(
                    context,
                    "multiprocessing.get_context('spawn')"
                )]))
            );
            let forked = child_by(ChildKind::Executor, StartMethod::Fork);
            let spawned = || child_by(ChildKind::Executor, StartMethod::Spawn);
            vec![
                Probe::new(
                    "forks workers at the first submit",
                    p(main_guard(&submit(&[]))),
                )
                .has("a forked executor child", forked)
                .has("the child running `work`", runs("work"))
                .has("the child's tensor on cuda:1", object(CUDA_1)),
                Probe::new(format!("obeys `{}`", context.name), p(spawn_context))
                    .has("a spawned executor child", spawned()),
                Probe::new(
                    "each worker runs the initializer before its tasks",
                    p(main_guard(&with_init)),
                )
                .has("a child running `init`", runs("init"))
                .has("the initializer's tensor on cuda:2", object(CUDA_2))
                .holds(
                    "the initializer before the task",
                    before(runs("init"), runs("work")),
                ),
                Probe::new(obeys, spawning(&submit(&[])))
                    .has("a spawned executor child", spawned()),
            ]
        }
        ProcessApi::OsFork => vec![Probe::new(
            "forks; the `pid == 0` branch is the child",
            p(py(&[
                &format!("pid = {x}()"),
                "if pid == 0:",
                "    work('cuda:1')",
            ])),
        )
        .has(
            "a forked child",
            child_by(ChildKind::OsFork, StartMethod::Fork),
        )
        .holds(
            "the child's tensor after the fork",
            before(child(ChildKind::OsFork), object(CUDA_1)),
        )],
        ProcessApi::Spawns {
            func,
            args,
            start_method,
            one_node,
        } => {
            let start = |method: Option<(Param, &str)>| {
                let mut given = vec![(func, "job"), (args, "('cuda:1',)")];
                given.extend(method);
                p(main_guard(&call(x, &given)))
            };
            let mut first = Probe::new("starts `func(rank, *args)` by spawn", start(None))
                .has(
                    "a spawned child",
                    child_by(ChildKind::StartProcesses, StartMethod::Spawn),
                )
                .has("the child running `job`", runs("job"))
                .has("a tensor on the rank's device", object(PER_WORKER))
                .has("a tensor on cuda:1", object(CUDA_1));
            if one_node {
                first = first.has("its children launched on one node", launched(Nodes::One));
            }
            let mut out = vec![first];
            if let Some(method) = start_method {
                out.push(
                    Probe::new(
                        format!("obeys `{}`", method.name),
                        start(Some((method, "'fork'"))),
                    )
                    .has(
                        "a forked child",
                        child_by(ChildKind::StartProcesses, StartMethod::Fork),
                    ),
                );
            }
            out
        }
        ProcessApi::DaemonContext => vec![Probe::new(
            "runs the `with` body in a forked daemon",
            p(py(&[&format!("with {x}():"), "    work('cuda:1')"])),
        )
        .has(
            "a forked daemon",
            child_by(ChildKind::DaemonContext, StartMethod::Fork),
        )
        .holds(
            "the daemon's tensor after the fork",
            before(child(ChildKind::DaemonContext), object(CUDA_1)),
        )],
    }
}

fn loader(c: &Callee, does: Behaviour) -> Vec<Probe> {
    let Behaviour::Loader {
        dataset,
        num_workers,
        collate_fn,
        worker_init_fn,
        context,
        one_thread,
    } = does
    else {
        unreachable!("only loader rows are probed here")
    };
    let run = |extra: &[(Param, &str)]| {
        let mut args = vec![(dataset, "Items()")];
        if !extra.iter().any(|(p, _)| *p == num_workers) {
            args.push((num_workers, "2"));
        }
        args.extend_from_slice(extra);
        let body = py(&[
            &format!("loader = {}", call(&c.expr, &args)),
            "for b in loader:",
            "    print(b)",
        ]);
        program(c, &format!("{DATASET}{}", main_guard(&body)))
    };
    let limited = Probe::new("its workers' thread pool", run(&[]));
    vec![
        if one_thread {
            limited.has("HostThreadsLimited", threads_limited)
        } else {
            limited.lacks("HostThreadsLimited", threads_limited)
        },
        Probe::new("forks workers that fetch the dataset's items", run(&[]))
            .has(
                "a forked loader child",
                child_by(ChildKind::DataLoader, StartMethod::Fork),
            )
            .has(
                "the child running `Items.__getitem__`",
                runs("Items.__getitem__"),
            ),
        Probe::new(
            format!("workers run `{}`", collate_fn.name),
            run(&[(collate_fn, "collate")]),
        )
        .has("the child running `collate`", runs("collate")),
        Probe::new(
            format!("workers run `{}`", worker_init_fn.name),
            run(&[(worker_init_fn, "seed")]),
        )
        .has("the child running `seed`", runs("seed")),
        Probe::new(
            format!("obeys `{}`", context.name),
            run(&[(context, "'spawn'")]),
        )
        .has(
            "a spawned loader child",
            child_by(ChildKind::DataLoader, StartMethod::Spawn),
        ),
        Probe::new(
            "without workers, fetches the items in this process",
            run(&[(num_workers, "0")]),
        )
        .lacks("child", any_child)
        .has("a use of the batch `b`", uses("b")),
    ]
}

/// The dataset method that maps a function, and its `function` and `with_rank` parameters.
fn dataset_map() -> (&'static str, Param, Param) {
    libraries::method_rows()
        .find_map(|r| match (r.on, r.does) {
            (
                Receiver::Dataset,
                MethodBehaviour::MapsDataset {
                    function,
                    with_rank,
                    ..
                },
            ) => Some((r.name, function, with_rank)),
            _ => None,
        })
        .expect("a `MapsDataset` method row on datasets")
}

// ---------------------------------------------------------------------------------------------
// Methods and attributes: on a receiver of the row's kind.

/// Lines that bind `r` to a receiver of kind `on` (after [`WORKERS`]), one per way to get one.
fn receivers(on: Receiver) -> Vec<String> {
    let ways: &[&[&str]] = match on {
        Receiver::Any => &[&["r = torch.ones(2)"]],
        Receiver::Opaque => &[&[
            "from deepspeed.accelerator import get_accelerator",
            "r = get_accelerator()",
        ]],
        Receiver::CudaObject => &[&["r = torch.zeros(2, device='cuda:1')"]],
        Receiver::Process => &[
            &[
                "import multiprocessing",
                "r = multiprocessing.Process(target=work, args=('cuda:1',))",
            ],
            &[
                "import multiprocessing",
                "class W(multiprocessing.Process):",
                "    def run(self):",
                "        work('cuda:1')",
                "r = W()",
            ],
        ],
        Receiver::Pool => &[&["import multiprocessing", "r = multiprocessing.Pool(2)"]],
        Receiver::Executor => &[&[
            "import concurrent.futures",
            "r = concurrent.futures.ProcessPoolExecutor(2)",
        ]],
        Receiver::Dataset => &[&["import datasets", "r = datasets.load_dataset('data')"]],
        Receiver::DeviceOwner => &[&["import accelerate", "r = accelerate.Accelerator()"]],
        Receiver::Channel => &[
            &["import multiprocessing", "r = multiprocessing.Queue()"],
            &["import multiprocessing", "r, _ = multiprocessing.Pipe()"],
            &[
                "import multiprocessing",
                "r = multiprocessing.get_context('spawn').SimpleQueue()",
            ],
            &[
                "import multiprocessing",
                "r = multiprocessing.Manager().dict()",
            ],
        ],
        Receiver::Manager => &[
            &["import multiprocessing", "r = multiprocessing.Manager()"],
            &[
                "import multiprocessing",
                "r = multiprocessing.get_context('spawn').Manager()",
            ],
        ],
    };
    ways.iter().map(|lines| py(lines)).collect()
}

/// The index of a device read from a receiver of kind `on` (`None`: any CUDA device).
fn receiver_device(on: Receiver) -> Option<DeviceIndex> {
    match on {
        Receiver::CudaObject => Some(CUDA_1),
        Receiver::DeviceOwner => Some(PER_WORKER),
        Receiver::Opaque => Some(DeviceIndex::Inherited),
        Receiver::Any
        | Receiver::Process
        | Receiver::Pool
        | Receiver::Executor
        | Receiver::Dataset
        | Receiver::Channel
        | Receiver::Manager => None,
    }
}

/// One probe per way to get a receiver of kind `on`: workers, the receiver `r`, then `body`.
fn on_receivers(on: Receiver, label: &str, body: &str) -> Vec<Probe> {
    receivers(on)
        .into_iter()
        .map(|r| {
            Probe::new(
                label,
                format!("import torch\nimport os\n{WORKERS}{r}{body}"),
            )
        })
        .collect()
}

fn method_probes(row: &MethodRow) -> Vec<Probe> {
    let m = format!("r.{}", row.name);
    let m = m.as_str();
    let on = row.on;
    // What a method of any value does shows on a CUDA object.
    let cuda_on = if on == Receiver::Any {
        Receiver::CudaObject
    } else {
        on
    };
    let each = |on: Receiver, label: &str, body: String, check: &dyn Fn(Probe) -> Probe| {
        on_receivers(on, label, &body)
            .into_iter()
            .map(check)
            .collect::<Vec<_>>()
    };
    match row.does {
        MethodBehaviour::BindsDevice { device } => [
            each(
                on,
                "binds a rank's device",
                py(&[
                    "v = int(os.environ['LOCAL_RANK'])",
                    &call(m, &[(device, "v")]),
                ]),
                &|p| p.has("DeviceBound chosen per worker", bound(Binding::Call, true)),
            ),
            each(
                on,
                "binds a constant device",
                py(&[&call(m, &[(device, "0")])]),
                &|p| p.has("DeviceBound", bound(Binding::Call, false)),
            ),
        ]
        .into_iter()
        .flatten()
        .collect(),
        MethodBehaviour::StartsProcess => {
            each(on, "starts the child", py(&[&format!("{m}()")]), &|p| {
                p.has("a child", child(ChildKind::ProcessStart))
                    .has("the child's tensor on cuda:1", object(CUDA_1))
            })
        }
        MethodBehaviour::RunsInWorkers(how) => {
            let body = match how {
                WorkerCall::Map => format!("{m}(work, ['cuda:1'])"),
                WorkerCall::Starmap => format!("{m}(work, [('cuda:1',)])"),
                WorkerCall::Apply => format!("{m}(work, ('cuda:1',))"),
                WorkerCall::Submit => format!("{m}(work, 'cuda:1')"),
            };
            let label = format!("runs the function in the workers ({how:?})");
            each(on, &label, py(&[&body]), &|p| {
                p.has("a child running `work`", runs("work"))
                    .has("the task's tensor on cuda:1", object(CUDA_1))
            })
        }
        MethodBehaviour::MovesArgumentsToDevice => each(
            on,
            "moves its arguments to the rank's device",
            py(&["model = torch.ones(2)", &format!("x = {m}(model)")]),
            &|p| p.has("an object on a per-worker device", object(PER_WORKER)),
        ),
        MethodBehaviour::MovesToCuda { device } => [
            each(
                on,
                "moves to the current device",
                py(&[&format!("x = {m}()")]),
                &|p| p.has("an object on the current device", object(CURRENT)),
            ),
            each(
                on,
                "moves to the device named",
                py(&[&format!("x = {}", call(m, &[(device, "2")]))]),
                &|p| p.has("an object on cuda:2", object(CUDA_2)),
            ),
        ]
        .into_iter()
        .flatten()
        .collect(),
        MethodBehaviour::MovesTo { device } => [
            each(
                on,
                "moves to the device named",
                py(&[&format!("x = {}", call(m, &[(device, "'cuda:2'")]))]),
                &|p| p.has("an object on cuda:2", object(CUDA_2)),
            ),
            each(
                cuda_on,
                "moved to the CPU, it leaves CUDA",
                py(&[
                    &format!("y = {}", call(m, &[(device, "'cpu'")])),
                    "print(y)",
                ]),
                &|p| {
                    p.has("a use of `r` (control)", uses("r"))
                        .lacks("use of `y`", uses("y"))
                },
            ),
        ]
        .into_iter()
        .flatten()
        .collect(),
        MethodBehaviour::CreatesContext => each(
            on,
            "creates a context",
            py(&[&format!("x = {m}()")]),
            &|p| p.has("an object on the current device", object(CURRENT)),
        ),
        MethodBehaviour::InitsCuda { level } => each(
            on,
            &format!("initialises CUDA to {level:?}"),
            py(&[&format!("y = {m}()"), "print(y)"]),
            &|p| {
                p.has(
                    &format!("CudaInit at {level:?}, fails_in_child true"),
                    init_failing(level, true),
                )
                .lacks("CUDA object", any_object)
            },
        ),
        MethodBehaviour::PinsHostMemory => each(
            on,
            "pins host memory",
            py(&[&format!("y = {m}()"), "print(y)"]),
            &|p| {
                p.has(
                    "CudaInit at Context, fails_in_child true",
                    init_failing(Init::Context, true),
                )
                .lacks("CUDA object (pinned memory is host memory)", any_object)
            },
        ),
        MethodBehaviour::Computes => each(
            on,
            "computes on host tensors",
            py(&[&format!("y = {m}(r)"), "print(y)"]),
            &|p| p.has("HostCompute", host_compute),
        ),
        MethodBehaviour::Metadata => each(
            cuda_on,
            "reads metadata, not a tensor",
            py(&[&format!("y = {m}()"), "print(y)"]),
            &|p| {
                p.has("a use of `r` (control)", uses("r"))
                    .lacks("use of `y`", uses("y"))
            },
        ),
        MethodBehaviour::State => vec![
            Probe::new(
                "a host module's state is host values",
                format!(
                    "import torch\n{}",
                    py(&[
                        "model = torch.nn.Linear(2, 2)",
                        &format!("torch.save(model.{}(), 'w.pt')", row.name),
                    ])
                ),
            )
            .has("a host-only save", saved(true)),
            Probe::new(
                "a CUDA module's state is on CUDA",
                format!(
                    "import torch\n{}",
                    py(&[
                        "model = torch.nn.Linear(2, 2).to('cuda:1')",
                        &format!("torch.save(model.{}(), 'w.pt')", row.name),
                    ])
                ),
            )
            .has("a save with CUDA", saved(false)),
        ],
        MethodBehaviour::ToCpu | MethodBehaviour::MovesToCpu => each(
            cuda_on,
            "brings the value to the CPU",
            py(&[&format!("y = {m}()"), "print(y)"]),
            &|p| {
                p.has("a use of `r` (control)", uses("r"))
                    .lacks("use of `y`", uses("y"))
            },
        ),
        MethodBehaviour::Sends => [
            each(
                on,
                "sends a CUDA tensor",
                py(&[
                    "t = torch.zeros(1, device='cuda:1')",
                    &format!("{m}(('label', t))"),
                ]),
                &|p| {
                    p.has("CudaObjectSent", |e| {
                        matches!(e, Effect::CudaObjectSent { .. })
                    })
                },
            ),
            each(
                on,
                "a CPU copy is no CUDA object",
                py(&[
                    "t = torch.zeros(1, device='cuda:1')",
                    &format!("{m}(t.cpu())"),
                ]),
                &|p| {
                    p.has("a use of `t` (control)", uses("t"))
                        .lacks("CudaObjectSent", |e| {
                            matches!(e, Effect::CudaObjectSent { .. })
                        })
                },
            ),
        ]
        .into_iter()
        .flatten()
        .collect(),
        MethodBehaviour::Waits => each(
            on,
            "waits for another process",
            py(&[&format!("{m}()")]),
            &|p| p.has("WaitedForOthers", waited),
        ),
        MethodBehaviour::MakesProxy => each(
            on,
            "makes a proxy the manager process holds",
            py(&[
                &format!("proxy = {m}()"),
                "t = torch.zeros(1, device='cuda:1')",
                "proxy['k'] = t",
            ]),
            &|p| {
                p.has(
                    "CudaObjectSent through the manager",
                    sent(Channel::ManagerProxy),
                )
            },
        ),
        MethodBehaviour::MapsDataset {
            function,
            num_proc,
            with_rank,
        } => {
            let body = py(&[
                "def fn(x, v):",
                "    t = torch.zeros(1, device=v)",
                &call(m, &[(function, "fn"), (num_proc, "4"), (with_rank, "True")]),
            ]);
            let forks = |p: Probe| {
                p.has("a dataset-map child", child(ChildKind::DatasetMap))
                    .has("the child running `fn`", runs("fn"))
                    .has("a tensor on the rank's device", object(PER_WORKER))
            };
            let mut out = each(on, "forks `num_proc` workers", body.clone(), &forks);
            if on == Receiver::Dataset {
                // Any value is a dataset when the call passes `num_proc`.
                let label = "forks `num_proc` workers for any value";
                out.extend(each(Receiver::Opaque, label, body, &forks));
            }
            out
        }
    }
}

fn attribute_probes(row: &AttributeRow) -> Vec<Probe> {
    let read = format!("v = r.{}\nprint(v)\n", row.name);
    match row.does {
        AttributeBehaviour::Device => {
            let index = receiver_device(row.on);
            let on = index.map_or("CUDA".into(), |i| format!("{i:?}"));
            let body = format!("{read}t = torch.ones(1, device=v)\n");
            on_receivers(row.on, "the receiver's device", &body)
                .into_iter()
                .map(|p| {
                    p.holds(&format!("the last object on {on}"), move |e| {
                        match e.iter().rev().find(|e| any_object(e)) {
                            Some(Effect::CudaObjectCreated { object, .. }) => {
                                index.is_none_or(|i| object.index == i)
                            }
                            _ => false,
                        }
                    })
                    .lacks("use of `v` (a device, not a tensor)", uses("v"))
                })
                .collect()
        }
        AttributeBehaviour::Metadata => on_receivers(row.on, "host-side metadata", &read)
            .into_iter()
            .map(|p| p.lacks("use of `v`", uses("v")))
            .collect(),
    }
}

// ---------------------------------------------------------------------------------------------
// Environment variables and imports.

fn env_probes(row: &EnvRow) -> Result<Vec<Probe>, String> {
    let name = row.name;
    let base = |lines: &[&str]| format!("import torch\nimport os\n{}", py(lines));
    Ok(match row.role {
        EnvRole::Rank => vec![Probe::new(
            "a rank read chooses a per-worker device",
            base(&[
                &format!("v = os.environ['{name}']"),
                "t = torch.zeros(1, device=v)",
            ]),
        )
        .has("a tensor on a per-worker device", object(PER_WORKER))],
        EnvRole::GlobalRank => vec![Probe::new(
            "a global rank read as a device index is reported",
            base(&[
                &format!("v = int(os.environ['{name}'])"),
                "torch.cuda.set_device(f'cuda:{v}')",
            ]),
        )
        .has("a device from the global rank", from_global_rank)],
        EnvRole::RendezvousHost => vec![
            Probe::new(
                "a loopback rendezvous launches on one node",
                base(&[&format!("os.environ['{name}'] = '127.0.0.1'")]),
            )
            .has("a launch on one node", launched(Nodes::One)),
            Probe::new(
                "another host says nothing of the node count",
                base(&[&format!("os.environ['{name}'] = 'node17'")]),
            )
            .has("the write (control)", written(name))
            .lacks("a launch", any_launch),
        ],
        EnvRole::NarrowsVisibility => vec![
            Probe::new(
                "written before CUDA starts, it binds the device",
                base(&[&format!("os.environ['{name}'] = '1'"), "torch.cuda.init()"]),
            )
            .holds(
                "DeviceBound by narrowing, then CudaInit",
                before(bound(Binding::Narrowed, false), any_init),
            ),
            Probe::new(
                "written after CUDA started, it binds nothing",
                base(&["torch.cuda.init()", &format!("os.environ['{name}'] = '1'")]),
            )
            .has("the write (control)", written(name))
            .lacks("DeviceBound", any_bound),
            Probe::new(
                "the launcher's value saved and written back selects nothing new",
                base(&[
                    &format!("saved = os.environ.get('{name}')"),
                    &format!("os.environ['{name}'] = ''"),
                    &format!("os.environ['{name}'] = saved"),
                ]),
            )
            .has(
                "a write hiding every GPU",
                visibility(VisibilityWrite::HidesAll),
            )
            .has("a copied write", visibility(VisibilityWrite::Copied))
            .lacks("a selecting write", visibility(VisibilityWrite::Selects)),
        ],
        EnvRole::LauncherVisibility => {
            let cuda = libraries::env_rows()
                .iter()
                .find(|r| r.role == EnvRole::NarrowsVisibility)
                .map_or("", |r| r.name);
            vec![Probe::new(
                "copied into the CUDA variable, it selects nothing new",
                base(&[&format!("os.environ['{cuda}'] = os.environ['{name}']")]),
            )
            .has("a copied write", visibility(VisibilityWrite::Copied))
            .lacks("a selecting write", visibility(VisibilityWrite::Selects))]
        }
        EnvRole::ChangesCalls => {
            let calls: Vec<(&Row, &str)> = libraries::rows()
                .filter_map(|r| match r.does {
                    Behaviour::InitsCuda {
                        unless_env: Some((key, value)),
                        ..
                    } if key == name => Some((r, value)),
                    _ => None,
                })
                .collect();
            if calls.is_empty() {
                return Err("no row's call depends on it".into());
            }
            let mut out = Vec::new();
            for (r, value) in calls {
                let c = callee(r.name);
                let write = format!("os.environ['{name}'] = '{value}'");
                out.push(
                    Probe::new(
                        format!("set to {value}, `{}` initialises nothing", r.name),
                        program(&c, &py(&[&write, &format!("{}()", c.expr)])),
                    )
                    .has("the write (control)", written(name))
                    .lacks("CudaInit", any_init),
                );
                // A module imported after the write runs again, not from the import cache (where
                // it ran in a clean process, without the setting).
                out.push(
                    Probe::new(
                        format!("set to {value}, `{}` in a module imported later", r.name),
                        base(&[
                            &write,
                            "import helper",
                            "pid = os.fork()",
                            "if pid == 0:",
                            "    pass",
                        ]),
                    )
                    .module("helper.py", program(&c, &py(&[&format!("{}()", c.expr)])))
                    .has("a forked child (control)", child(ChildKind::OsFork))
                    .lacks("child inheriting CUDA", inheriting(ChildKind::OsFork)),
                );
            }
            out
        }
    })
}

fn import_probes(row: &ImportRow) -> Result<Vec<Probe>, String> {
    let level = row.init;
    if level == Init::None && row.sets_env.is_none() {
        return Err("an import row that does nothing".into());
    }
    let module = row.module;
    // Each spelling of the import: the module, from its parent, and a name from inside it.
    let mut imports = vec![format!("import {module}")];
    if let Some((parent, leaf)) = module.rsplit_once('.') {
        imports.push(format!("from {parent} import {leaf}"));
    }
    imports.push(format!("from {module} import Something"));
    let mut out = Vec::new();
    for import in &imports {
        let probe = Probe::new(format!("`{import}`"), format!("import torch\n{import}\n"));
        let probe = if level == Init::None {
            probe.lacks("CudaInit", any_init)
        } else {
            probe.has(&format!("CudaInit at {level:?}"), init_at(level))
        };
        out.push(match row.sets_env {
            Some((key, value)) => {
                probe.has(&format!("EnvWritten {key}={value}"), written_as(key, value))
            }
            None => probe,
        });
    }
    let Some((key, value)) = row.sets_env else {
        return Ok(out);
    };
    if let Some(since) = row.sets_env_since {
        let package = module.split('.').next().unwrap_or(module);
        let older = format!("{package}=={}.{}.0", since[0], since[1].saturating_sub(1));
        out.push(
            Probe::new(
                format!("an older {package} ({older}) writes nothing"),
                format!("import torch\nimport {module}\n"),
            )
            .settings(Settings {
                requirements: gpulint_python::requirements::Requirements::parse([older.as_str()]),
                ..Settings::default()
            })
            .lacks("EnvWritten", written(key)),
        );
    }
    // What the variable changes: the calls whose rows say so do nothing after the import.
    let calls: Vec<&Row> = libraries::rows()
        .filter(|r| {
            matches!(r.does, Behaviour::InitsCuda { unless_env: Some(env), .. } if env == (key, value))
        })
        .collect();
    if calls.is_empty() {
        return Err(format!("no row's call depends on {key}={value}"));
    }
    for r in calls {
        let c = callee(r.name);
        out.push(
            Probe::new(
                format!("after it, `{}` initialises nothing", r.name),
                program(
                    &c,
                    &py(&[&format!("import {module}"), &format!("{}()", c.expr)]),
                ),
            )
            .has("the write (control)", written(key))
            .lacks("CudaInit", any_init),
        );
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Running probes.

fn effects(probe: &Probe) -> Result<Vec<Effect>, String> {
    // Kept until the program is analysed: its modules are read from it.
    let mut folder = None;
    let program = if probe.modules.is_empty() {
        Program::build(vec![Input::Text {
            path: "main.py".into(),
            text: probe.text.clone(),
        }])
    } else {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let main = dir.path().join("main.py");
        std::fs::write(&main, &probe.text).map_err(|e| e.to_string())?;
        for (file, text) in &probe.modules {
            std::fs::write(dir.path().join(file), text).map_err(|e| e.to_string())?;
        }
        folder = Some(dir);
        Program::build(vec![Input::Path(main)])
    };
    for (id, file) in program.files() {
        if file.module.is_err() {
            return Err(format!("{} does not parse", file.path.display()));
        }
        if id == FileId(0) && !program.is_relevant(id) {
            return Err("the program is not interpreted".into());
        }
    }
    let settings = probe.settings.clone();
    let cache = if probe.modules.is_empty() {
        ImportCache::<Log>::default()
    } else {
        ImportCache::<Log>::build(&program, settings.clone())
    };
    let effects = analyze::<Log>(&program, &cache, FileId(0), settings);
    drop(folder);
    Ok(effects)
}

/// One line per effect, for failure messages.
fn summary(effect: &Effect) -> String {
    let global = |o: &gpulint_core::effect::CudaObject| o.global.as_ref().map(|g| g.0.to_string());
    match effect {
        Effect::CudaInit {
            site,
            fails_in_child,
        } => format!(
            "CudaInit {:?} fails_in_child={fails_in_child}: {}",
            site.level, site.what
        ),
        Effect::CudaObjectCreated { object, what } => format!(
            "CudaObjectCreated {:?} global={:?}: {what}",
            object.index,
            global(object)
        ),
        Effect::CudaUsed {
            object,
            what,
            through_global,
            ..
        } => format!(
            "CudaUsed {:?} through_global={through_global} global={:?}: {what}",
            object.index,
            global(object)
        ),
        Effect::DeviceBound {
            binding, chooses, ..
        } => format!("DeviceBound {binding:?} chooses={chooses}"),
        Effect::CachedDeviceReturned { global, .. } => {
            format!("CachedDeviceReturned global={}", global.0)
        }
        Effect::ProcessGroupCreated {
            backend,
            device_given,
            ..
        } => format!("ProcessGroupCreated {backend:?} device_given={device_given}"),
        Effect::CollectiveRun {
            name,
            explicit_device,
            ..
        } => format!("CollectiveRun {name} explicit_device={explicit_device}"),
        Effect::ChildStarted(c) => format!(
            "ChildStarted {:?} {:?} parent_init={:?} code={:?}",
            c.kind,
            c.start_method,
            c.parent_init.as_ref().map(|i| i.level),
            c.code
        ),
        Effect::ChildRuns { code } => format!("ChildRuns {code}"),
        Effect::NotFollowed { .. } => "NotFollowed".into(),
        Effect::StartMethodSet {
            method,
            at_module_scope,
            ..
        } => format!("StartMethodSet {method:?} at_module_scope={at_module_scope}"),
        Effect::StartMethodFixed {
            creates_objects, ..
        } => format!("StartMethodFixed creates_objects={creates_objects}"),
        Effect::EnvWritten { key, value, .. } => format!("EnvWritten {key}={value:?}"),
        Effect::UnmappedLoad { what, file, .. } => format!("UnmappedLoad {what} file={file:?}"),
        Effect::CheckpointSaved {
            file, host_only, ..
        } => format!("CheckpointSaved {file} host_only={host_only}"),
        Effect::DeviceFromGlobalRank { .. } => "DeviceFromGlobalRank".into(),
        Effect::Launched { nodes, .. } => format!("Launched {nodes:?}"),
        Effect::UnserializableSent(sent) => format!(
            "UnserializableSent {:?} {:?} {:?}: {}",
            sent.handed, sent.start_method, sent.why, sent.name
        ),
        Effect::GlobalWritten {
            global, in_place, ..
        } => format!("GlobalWritten {} in_place={in_place}", global.name),
        Effect::GlobalRead {
            global,
            defined,
            owner,
            ..
        } => format!("GlobalRead {} defined={defined} owner={owner}", global.name),
        Effect::CudaObjectSent {
            object,
            channel,
            what,
            ..
        } => format!(
            "CudaObjectSent {channel:?} by_handle={}: {what}",
            object.by_handle
        ),
        Effect::WaitedForOthers { .. } => "WaitedForOthers".to_string(),
        Effect::CudaHeld { what, .. } => format!("CudaHeld: {what}"),
        Effect::HostCompute { what, .. } => format!("HostCompute: {what}"),
        Effect::HostThreadsLimited { .. } => "HostThreadsLimited".to_string(),
    }
}

/// The failures of a table's probes.
#[derive(Default)]
struct Report {
    failures: Vec<String>,
    probes: usize,
    allowed: Vec<String>,
}

impl Report {
    /// Runs one row's probes (`Err`: the row is wrong without running anything).
    fn row(&mut self, row: &str, probes: Result<Vec<Probe>, String>) {
        let probes = match probes {
            Ok(p) if p.is_empty() => Err("no probe".to_string()),
            other => other,
        };
        let probes = match probes {
            Ok(p) => p,
            Err(why) => return self.fail(row, "the row itself", format!("  {why}\n")),
        };
        for probe in probes {
            self.probes += 1;
            let mut out = String::new();
            match effects(&probe) {
                Err(why) => writeln!(out, "  {why}").unwrap(),
                Ok(effects) => {
                    for (what, check) in &probe.expect {
                        if !check(&effects) {
                            writeln!(out, "  expected: {what}").unwrap();
                        }
                    }
                    if !out.is_empty() {
                        writeln!(out, "  effects seen:").unwrap();
                        for e in &effects {
                            writeln!(out, "    {}", summary(e)).unwrap();
                        }
                        if effects.is_empty() {
                            writeln!(out, "    (none)").unwrap();
                        }
                    }
                }
            }
            if !out.is_empty() {
                let files = [("main.py", &probe.text)]
                    .into_iter()
                    .chain(probe.modules.iter().map(|(f, t)| (*f, t)));
                for (file, text) in files {
                    writeln!(out, "  {file}:").unwrap();
                    for line in text.lines() {
                        writeln!(out, "    | {line}").unwrap();
                    }
                }
                self.fail(row, &probe.label, out);
            }
        }
    }

    fn fail(&mut self, row: &str, label: &str, detail: String) {
        if KNOWN_FAILURES.contains(&(row, label)) {
            self.allowed.push(format!("{row}: {label}"));
        } else {
            self.failures.push(format!("`{row}`: {label}\n{detail}"));
        }
    }

    fn assert(self, table: &str) {
        eprintln!(
            "{table}: {} probes, {} known failures {:?}",
            self.probes,
            self.allowed.len(),
            self.allowed
        );
        assert!(self.probes > 0, "{table}: no rows");
        assert!(
            self.failures.is_empty(),
            "{} failing probe(s) of {table}:\n\n{}",
            self.failures.len(),
            self.failures.join("\n")
        );
    }
}

// ---------------------------------------------------------------------------------------------
// One test per table.

#[test]
fn every_row_does_what_it_says() {
    let mut report = Report::default();
    for row in libraries::rows() {
        report.row(row.name, probes(&callee(row.name), row.does));
    }
    report.assert("rows");
}

#[test]
fn every_prefix_row_covers_its_names_but_not_its_exceptions() {
    let mut report = Report::default();
    for row in libraries::prefix_rows() {
        let (prefix, suffix) = (row.prefix, row.suffix);
        let id = format!("{prefix}*{suffix}");
        // Prefix rows are found by their prefix's first name, which a dot must end.
        if !prefix.ends_with('.') {
            report.row(&id, Err("the prefix does not end with a dot".to_string()));
        }
        let this = Some((row.does, row.reason));
        let nested = [
            format!("{prefix}sample{suffix}"),
            format!("{prefix}sub.Sample{suffix}"),
        ];
        let samples = if row.class_leaf {
            vec![format!("{prefix}Sample{suffix}")]
        } else {
            nested.to_vec()
        };
        for sample in &samples {
            let found = libraries::lookup(sample);
            let probes = if found == this {
                probes(&callee(sample), row.does)
                    .map(|ps| ps.into_iter().map(|p| p.labelled(sample)).collect())
            } else {
                Err(format!("`{sample}` looks up as {found:?}, not as this row"))
            };
            report.row(&id, probes);
        }
        if row.class_leaf {
            for other in nested.iter().filter(|n| libraries::lookup(n) == this) {
                report.row(&id, Err(format!("covers `{other}`, not a class")));
            }
        }
        for &except in row.except {
            if libraries::lookup(except) == this {
                report.row(&id, Err(format!("covers `{except}`, an exception")));
                continue;
            }
            let c = callee(except);
            let probe = Probe::new(
                format!("`{except}` touches no CUDA"),
                program(
                    &c,
                    &py(&[&format!("x = {}()", c.expr), "torch.cuda.init()"]),
                ),
            )
            .holds("only the control's CudaInit", |e| {
                e.len() == 1 && e.iter().all(init_at(Init::Context))
            });
            report.row(&id, Ok(vec![probe]));
        }
    }
    report.assert("prefix rows");
}

#[test]
fn every_method_row_does_what_it_says() {
    let mut report = Report::default();
    for row in libraries::method_rows() {
        report.row(
            &format!("{:?}.{}", row.on, row.name),
            Ok(method_probes(row)),
        );
    }
    report.assert("method rows");
}

#[test]
fn every_attribute_row_does_what_it_says() {
    let mut report = Report::default();
    for row in libraries::attribute_rows() {
        report.row(
            &format!("{:?}.{}", row.on, row.name),
            Ok(attribute_probes(row)),
        );
    }
    report.assert("attribute rows");
}

#[test]
fn every_environment_row_does_what_it_says() {
    let mut report = Report::default();
    for row in libraries::env_rows() {
        report.row(row.name, env_probes(row));
    }
    report.assert("environment rows");
}

#[test]
fn every_import_row_does_what_it_says() {
    let mut report = Report::default();
    for row in libraries::import_rows() {
        report.row(row.module, import_probes(row));
    }
    report.assert("import rows");
}

/// A name listed twice is looked up as its first row only: the second is dead.
#[test]
fn no_name_appears_twice() {
    fn twice<K: std::hash::Hash + Eq + std::fmt::Debug>(
        table: &str,
        keys: impl Iterator<Item = K>,
    ) -> Vec<String> {
        let mut seen = HashSet::new();
        keys.filter_map(|k| {
            let message = format!("{table}: {k:?}");
            (!seen.insert(k)).then_some(message)
        })
        .collect()
    }
    let debug = |on: Receiver| format!("{on:?}");
    let mut all = Vec::new();
    all.extend(twice("rows", libraries::rows().map(|r| r.name)));
    all.extend(twice(
        "prefix rows",
        libraries::prefix_rows().map(|r| (r.prefix, r.suffix, r.class_leaf)),
    ));
    all.extend(twice(
        "method rows",
        libraries::method_rows().map(|r| (r.name, debug(r.on))),
    ));
    all.extend(twice(
        "attribute rows",
        libraries::attribute_rows().map(|r| (r.name, debug(r.on))),
    ));
    all.extend(twice(
        "environment rows",
        libraries::env_rows().iter().map(|r| r.name),
    ));
    all.extend(twice(
        "import rows",
        libraries::import_rows().map(|r| r.module),
    ));
    assert!(all.is_empty(), "listed twice:\n{}", all.join("\n"));
}
