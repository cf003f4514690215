//! Probes of `ForksWorkers` rows, as functions and as methods: forked after CUDA, the workers run
//! the caller's code (or the library's, on the GPU where the parent put it) with the parent's
//! CUDA state; without the argument the row asks for, no child.

use super::*;

/// What a probe checks.
pub(crate) type Check = Box<dyn Fn(Probe) -> Probe>;

/// The probes of calling `f` (an expression), each a label, a body and its check. A row that
/// forks at a method is called, then its object's first forking method is.
pub(crate) fn cases(f: &str, row: &'static ForkingCall) -> Vec<(&'static str, String, Check)> {
    let workers = (row.above + 1).to_string();
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
    // `with_asked`: pass the argument the row asks for; `on_cpu`: put `OnDevices` workers on the
    // CPU.
    let body = |with_asked: bool, on_cpu: bool, setup: &str| {
        let mut made: Vec<(Param, &str)> = vec![(row.workers, workers.as_str())];
        if let (true, Some((p, v))) = (with_asked, &asked) {
            made.push((*p, v.as_str()));
        }
        if let (true, Some(p)) = (on_cpu, cpu) {
            made.push((p, "'cpu'"));
        }
        let given: Vec<(Param, &str)> = code.into_iter().collect();
        // The caller's code, where the workers run it (the library's own code needs none).
        let defined: &[&str] = match code {
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
        match row.at {
            ForkAt::Call => {
                made.extend(given);
                lines.push(call(f, &made));
            }
            ForkAt::Methods(names) => {
                lines.push(format!("made = {}", call(f, &made)));
                let method = match names[0] {
                    "__call__" => "made".to_string(),
                    name => format!("made.{name}"),
                };
                lines.push(call(&method, &given));
            }
        }
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        py(&lines)
    };
    let launcher = &row.launcher;
    let mut out: Vec<(&'static str, String, Check)> = Vec::new();
    let gpu_work = move || after(child(launcher), init_at(Init::Context));
    match row.runs {
        WorkersRun::Callable(_) | WorkersRun::ItemsOf(_) | WorkersRun::CallsItems(_) => {
            out.push((
                "forks workers that run the caller's code",
                body(true, false, &setup),
                Box::new(move |p: Probe| {
                    p.has("a child inheriting CUDA", inheriting(launcher))
                        .has("the child running the caller's code", runs(runs_name))
                }),
            ));
        }
        WorkersRun::Library { .. } => {
            out.push((
                "forks workers that run the library on the GPU where the parent put it",
                body(true, false, &setup),
                Box::new(move |p: Probe| {
                    p.has("a child inheriting CUDA", inheriting(launcher))
                        .holds("GPU work in the child", gpu_work())
                }),
            ));
            out.push((
                "with the library on the CPU, its workers do no GPU work",
                body(true, false, "torch.cuda.init()"),
                Box::new(move |p: Probe| {
                    p.has("a child inheriting CUDA (control)", inheriting(launcher))
                        .holds("no GPU work in the child", move |e| !gpu_work()(e))
                }),
            ));
        }
        WorkersRun::OnDevices { .. } => {
            out.push((
                "forks workers that compute on their GPUs",
                body(true, false, &setup),
                Box::new(move |p: Probe| {
                    p.has("a child inheriting CUDA", inheriting(launcher))
                        .holds("GPU work in the child", gpu_work())
                }),
            ));
            if cpu.is_some() {
                out.push((
                    "on the CPU accelerator, its workers do no GPU work",
                    body(true, true, &setup),
                    Box::new(move |p: Probe| {
                        p.has("a child inheriting CUDA (control)", inheriting(launcher))
                            .holds("no GPU work in the child", move |e| !gpu_work()(e))
                    }),
                ));
            }
        }
    }
    match (asked.is_some(), code.is_some(), row.unasked_here) {
        (false, _, _) => {}
        (true, false, _) => out.push((
            "no worker processes without the argument the row asks for",
            body(false, false, &setup),
            Box::new(|p: Probe| p.lacks("a child", any_child)),
        )),
        (true, true, true) => out.push((
            "without the argument the row asks for, the caller's code runs in this process",
            body(false, false, &setup) + AFTER_CALL,
            Box::new(|p: Probe| {
                p.lacks("a child", any_child)
                    .holds("the caller's tensor made in the call", made_in_call())
            }),
        )),
        (true, true, false) => out.push((
            "without the argument the row asks for, the caller's code runs in clean processes",
            body(false, false, &setup) + AFTER_CALL,
            Box::new(|p: Probe| {
                p.lacks("a child", any_child)
                    .holds("no tensor of the caller's made in the call", |e| {
                        !made_in_call()(e)
                    })
            }),
        )),
    }
    out
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
