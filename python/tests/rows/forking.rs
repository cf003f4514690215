//! Probes of `ForksWorkers` rows, as functions and as methods: forked after CUDA, the workers run
//! the caller's code (or the library's, on the GPU where the parent put it) with the parent's
//! CUDA state; without the argument the row asks for, no child.

use super::*;

/// What a probe checks.
pub(crate) type Check = Box<dyn Fn(Probe) -> Probe>;

/// The probes of calling `f` (an expression), each a label, a body and its check.
pub(crate) fn cases(f: &str, row: &'static ForkingCall) -> Vec<(&'static str, String, Check)> {
    let workers = (row.above + 1).to_string();
    let asked = row.only_with.map(|(p, given)| {
        let v = match given {
            Given::True => "True".to_string(),
            Given::Str(s) => format!("'{s}'"),
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
        WorkersRun::Library { package, .. } => (None, "", on_gpu(package)),
    };
    let body = |with_asked: bool, setup: &str| {
        let mut args: Vec<(Param, &str)> = code.into_iter().collect();
        args.push((row.workers, workers.as_str()));
        if let (true, Some((p, v))) = (with_asked, &asked) {
            args.push((*p, v.as_str()));
        }
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
        let mut lines = defined.to_vec();
        let called = call(f, &args);
        lines.extend([setup, called.as_str()]);
        py(&lines)
    };
    let launcher = &row.launcher;
    let mut out: Vec<(&'static str, String, Check)> = Vec::new();
    if code.is_some() {
        out.push((
            "forks workers that run the caller's code",
            body(true, &setup),
            Box::new(move |p: Probe| {
                p.has("a child inheriting CUDA", inheriting(launcher))
                    .has("the child running the caller's code", runs(runs_name))
            }),
        ));
    } else {
        let gpu_work = || after(child(launcher), init_at(Init::Context));
        out.push((
            "forks workers that run the library on the GPU where the parent put it",
            body(true, &setup),
            Box::new(move |p: Probe| {
                p.has("a child inheriting CUDA", inheriting(launcher))
                    .holds("GPU work in the child", gpu_work())
            }),
        ));
        out.push((
            "with the library on the CPU, its workers do no GPU work",
            body(true, "torch.cuda.init()"),
            Box::new(move |p: Probe| {
                p.has("a child inheriting CUDA (control)", inheriting(launcher))
                    .holds("no GPU work in the child", move |e| !gpu_work()(e))
            }),
        ));
    }
    if asked.is_some() {
        out.push((
            "no worker processes without the argument the row asks for",
            body(false, &setup),
            Box::new(|p: Probe| p.lacks("a child", any_child)),
        ));
    }
    out
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
