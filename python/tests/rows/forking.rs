//! Probes of `ForksWorkers` rows, as functions and as methods: forked after CUDA, the workers run
//! the caller's code (or the library's, on the GPU where the parent put it) with the parent's
//! CUDA state; without the argument the row asks for, no child.

use super::*;

/// What a probe checks.
pub(crate) type Check = Box<dyn Fn(Probe) -> Probe>;

/// A probe's label, program body and check.
pub(crate) type Case = (&'static str, String, Check);

/// The programs of a row's probes: its call (then, for a row that forks at a method, its object's
/// first forking method) with the arguments each probe passes.
struct Calls<'a> {
    f: &'a str,
    row: &'static ForkingCall,
    workers: String,
    /// The argument the row asks for, with its value.
    asked: Option<(Param, String)>,
    /// The argument that hands the workers the caller's code, with that code.
    code: Option<(Param, &'static str)>,
    /// The accelerator argument of `OnDevices` workers.
    cpu: Option<Param>,
}

impl Calls<'_> {
    /// `with_asked`: pass the argument the row asks for; `on_cpu`: put `OnDevices` workers on the
    /// CPU.
    fn body(&self, with_asked: bool, on_cpu: bool, setup: &str) -> String {
        let mut made: Vec<(Param, &str)> = vec![(self.row.workers, self.workers.as_str())];
        if let (true, Some((p, v))) = (with_asked, &self.asked) {
            made.push((*p, v.as_str()));
        }
        if let (true, Some(p)) = (on_cpu, self.cpu) {
            made.push((p, "'cpu'"));
        }
        let given: Vec<(Param, &str)> = self.code.into_iter().collect();
        // The caller's code, where the workers run it (the library's own code needs none).
        let defined: &[&str] = match self.code {
            Some(_) => &[
                "class Items:",
                "    def __getitem__(self, i):",
                "        return torch.zeros(1, device='cuda:1')",
                "def work(x):",
                "    return torch.zeros(1, device='cuda:1')",
            ],
            None => &[],
        };
        let mut lines: Vec<String> = defined.iter().map(|l| l.to_string()).collect();
        lines.push(setup.to_string());
        match self.row.at {
            ForkAt::Call => {
                made.extend(given);
                lines.push(call(self.f, &made));
            }
            ForkAt::Methods(names) => {
                lines.push(format!("made = {}", call(self.f, &made)));
                let method = match names[0] {
                    "__call__" => "made".to_string(),
                    name => format!("made.{name}"),
                };
                lines.push(call(&method, &given));
            }
        }
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        py(&lines)
    }
}

/// The probes of calling `f` (an expression), each a label, a body and its check. A row that
/// forks at a method is called, then its object's first forking method is.
pub(crate) fn cases(f: &str, row: &'static ForkingCall) -> Vec<Case> {
    let asked = row.only_with.map(|(p, given)| {
        let v = match given {
            Given::True => "True".to_string(),
            Given::Str(s) => format!("'{s}'"),
            Given::OneOf(all) => format!("'{}'", all[all.len() - 1]),
        };
        (p, v)
    });
    let (code, runs_name, setup) = match row.runs {
        WorkersRun::Callable(p) => (Some((p, "work")), "work", "torch.cuda.init()".to_string()),
        WorkersRun::ItemsOf(p) => (
            Some((p, "Items()")),
            "Items.__getitem__",
            "torch.cuda.init()".to_string(),
        ),
        WorkersRun::CallsItems(p) => (
            Some((p, "[functools.partial(work, 0)]")),
            "work",
            "import functools\ntorch.cuda.init()".to_string(),
        ),
        WorkersRun::Library { package, .. } => (None, "", on_gpu(package)),
        WorkersRun::OnDevices { .. } => (None, "", "torch.cuda.init()".to_string()),
    };
    let cpu = match row.runs {
        WorkersRun::OnDevices {
            accelerator: Some((p, _)),
            ..
        } => Some(p),
        _ => None,
    };
    let calls = Calls {
        f,
        row,
        workers: (row.above + 1).to_string(),
        asked,
        code,
        cpu,
    };
    let mut out = forked(&calls, runs_name, &setup);
    out.extend(unasked(&calls, &setup));
    match row.versions {
        Some(v) => forking_versions::versioned(v, out, calls.body(true, false, &setup)),
        None => out,
    }
}

/// The probes with the workers asked for.
fn forked(calls: &Calls, runs_name: &'static str, setup: &str) -> Vec<Case> {
    let launcher = &calls.row.launcher;
    let gpu_work = move || after(child(launcher), init_at(Init::Context));
    let on_gpu: Case = (
        "forks workers that compute on the GPU",
        calls.body(true, false, setup),
        Box::new(move |p: Probe| {
            p.has("a child inheriting CUDA", inheriting(launcher))
                .holds("GPU work in the child", gpu_work())
        }),
    );
    let on_cpu = |label: &'static str, body: String| -> Case {
        (
            label,
            body,
            Box::new(move |p: Probe| {
                p.has("a child inheriting CUDA (control)", inheriting(launcher))
                    .holds("no GPU work in the child", move |e| !gpu_work()(e))
            }),
        )
    };
    match calls.row.runs {
        WorkersRun::Callable(_) | WorkersRun::ItemsOf(_) | WorkersRun::CallsItems(_) => vec![(
            "forks workers that run the caller's code",
            calls.body(true, false, setup),
            Box::new(move |p: Probe| {
                p.has("a child inheriting CUDA", inheriting(launcher))
                    .has("the child running the caller's code", runs(runs_name))
            }),
        )],
        // The library computes on the GPU where the parent put it.
        WorkersRun::Library { .. } => vec![
            on_gpu,
            on_cpu(
                "with the library on the CPU, its workers do no GPU work",
                calls.body(true, false, "torch.cuda.init()"),
            ),
        ],
        WorkersRun::OnDevices { .. } => {
            let mut out = vec![on_gpu];
            if calls.cpu.is_some() {
                out.push(on_cpu(
                    "on the CPU accelerator, its workers do no GPU work",
                    calls.body(true, true, setup),
                ));
            }
            out
        }
    }
}

/// The probe without the argument the row asks for: no child, and the caller's code runs in this
/// process or in clean processes, as the row says.
fn unasked(calls: &Calls, setup: &str) -> Option<Case> {
    let row = calls.row;
    Some(
        match (
            calls.asked.is_some(),
            calls.code.is_some(),
            row.unasked_here,
        ) {
            (false, _, _) => return None,
            (true, false, _) => (
                "no worker processes without the argument the row asks for",
                calls.body(false, false, setup),
                Box::new(|p: Probe| p.lacks("a child", any_child)),
            ),
            (true, true, true) => (
                "without the argument the row asks for, the caller's code runs in this process",
                calls.body(false, false, setup) + AFTER_CALL,
                Box::new(|p: Probe| {
                    p.lacks("a child", any_child)
                        .holds("the caller's tensor made in the call", made_in_call())
                }),
            ),
            (true, true, false) => (
                "without the argument the row asks for, the caller's code runs in clean processes",
                calls.body(false, false, setup) + AFTER_CALL,
                Box::new(|p: Probe| {
                    p.lacks("a child", any_child)
                        .holds("no tensor of the caller's made in the call", |e| {
                            !made_in_call()(e)
                        })
                }),
            ),
        },
    )
}

/// A line after the call, which tells the caller's code run by the call from the same code run
/// later as an entry point of its own (functions nobody calls are).
const AFTER_CALL: &str = "torch.zeros(1, device='cuda:2')\n";

/// The caller's tensor (on cuda:1) made before the line after the call.
fn made_in_call() -> impl Fn(&[Effect]) -> bool {
    before(object(CUDA_1), object(DeviceIndex::Fixed(2)))
}

/// A line that puts `package` on the GPU: a call of one of its rows that initialises CUDA.
fn on_gpu(package: &str) -> String {
    let row = libraries::rows()
        .find(|r| {
            r.name.split('.').next() == Some(package)
                && matches!(
                    r.does,
                    Behaviour::InitsCuda {
                        level: Init::Context,
                        ..
                    }
                )
        })
        .unwrap_or_else(|| panic!("no row of `{package}` initialises CUDA"));
    let module = row.name.rsplit_once('.').map_or(row.name, |(m, _)| m);
    format!("import {module}\n{}()", row.name)
}

/// A `ForksWorkers` function row.
pub(crate) fn forks_workers(c: &Callee, row: &'static ForkingCall) -> Vec<Probe> {
    cases(&c.expr, row)
        .into_iter()
        .map(|(label, body, check)| check(Probe::new(label, program(c, &body))))
        .collect()
}

/// A `Defers` row: `f(work)(x)` does not run `work` here; what it makes holds `work` and `x`, which
/// a worker that runs it calls.
pub(crate) fn defers(c: &Callee) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |last: &str| {
        let ready = format!("ready = {x}(work)('cuda:1')");
        program(
            c,
            &py(&[
                "def work(v):",
                "    return torch.zeros(1, device=v)",
                &ready,
                last,
            ]),
        )
    };
    vec![
        Probe::new("makes the call ready without running it", p("pass"))
            .lacks("a tensor on cuda:1", object(CUDA_1)),
        Probe::new(
            "what it makes runs the call with its arguments",
            p("t = ready()"),
        )
        .has("a tensor on cuda:1", object(CUDA_1)),
    ]
}
