//! Probes of the behaviour kinds of the process rows (`libraries/processes.rs`): children started,
//! start methods, carriers, waits, ends, commands.

use super::*;

/// What `carrier` makes carries a CUDA tensor to another process.
pub(crate) fn carries(c: &Callee, carrier: Carrier) -> Probe {
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

/// The probes of a row that does `StartsChildren`.
pub(crate) fn starts_children(c: &Callee, api: ProcessApi, layer: Layer) -> Vec<Probe> {
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
                        child_by(&launchers::PROCESS_START, StartMethod::Fork),
                    )
                    .has("the child running `work`", runs("work"))
                    .has("the child's tensor on cuda:1", object(CUDA_1)),
                Probe::new(obeys, spawning(&start)).has(
                    "a spawned child",
                    child_by(&launchers::PROCESS_START, StartMethod::Spawn),
                ),
                Probe::new(
                    "a subclass's `run` runs in the child",
                    p(format!("{subclass}{}", main_guard("W().start()"))),
                )
                .has("a child", child(&launchers::PROCESS_START))
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
                    child_by(&launchers::POOL, StartMethod::Fork),
                )
                .has("a child running `init`", runs("init"))
                .has("a child running `work`", runs("work"))
                .has("the initializer's tensor on cuda:1", object(CUDA_1))
                .has("the task's tensor on cuda:2", object(CUDA_2)),
                Probe::new("forks its workers at construction", p(later(None)))
                    .lacks("worker inheriting CUDA", inheriting(&launchers::POOL)),
                Probe::new(
                    format!("with `{}`, forks workers again later", max_tasks.name),
                    p(later(Some((max_tasks, "1")))),
                )
                .has("a worker inheriting CUDA", inheriting(&launchers::POOL)),
                Probe::new(obeys, spawning(&with_init)).has(
                    "a spawned pool child",
                    child_by(&launchers::POOL, StartMethod::Spawn),
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
            let forked = child_by(&launchers::EXECUTOR, StartMethod::Fork);
            let spawned = || child_by(&launchers::EXECUTOR, StartMethod::Spawn);
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
            child_by(&launchers::OS_FORK, StartMethod::Fork),
        )
        .holds(
            "the child's tensor after the fork",
            before(child(&launchers::OS_FORK), object(CUDA_1)),
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
                    child_by(&launchers::START_PROCESSES, StartMethod::Spawn),
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
                        child_by(&launchers::START_PROCESSES, StartMethod::Fork),
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
            child_by(&launchers::DAEMON_CONTEXT, StartMethod::Fork),
        )
        .holds(
            "the daemon's tensor after the fork",
            before(child(&launchers::DAEMON_CONTEXT), object(CUDA_1)),
        )],
    }
}

/// The probes of a row that does `GetContext`.
pub(crate) fn get_context(c: &Callee, layer: Layer, method: Param) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
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
            child_by(&launchers::PROCESS_START, StartMethod::Spawn),
        )
        .has("the child running `work`", runs("work")),
        Probe::new(
            format!("its `Pool` (`{module}.Pool`) uses the method named"),
            run("pool = ctx.Pool(2)\npool.map(work, ['cuda:1'])"),
        )
        .has(
            "a spawned pool child",
            child_by(&launchers::POOL, StartMethod::Spawn),
        ),
    ]
}

/// The probes of a row that does `FixesStartMethod` (on the first Python version of `pythons`;
/// on the version before it, none).
pub(crate) fn fixes_start_method(
    c: &Callee,
    allow_none: Option<Param>,
    creates_objects: bool,
    makes: Option<Carrier>,
    pythons: Option<(PythonVersion, PythonVersion)>,
) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
    let fixed = move |e: &Effect| matches!(e, Effect::StartMethodFixed { creates_objects: c, .. } if *c == creates_objects);
    let on = |python: PythonVersion| Settings {
        python,
        ..Settings::default()
    };
    let body = format!("import torch\n{}\n", call(x, &[]));
    let first = pythons.map_or(PythonVersion::DEFAULT, |(first, _)| first);
    let mut probes = vec![Probe::new("uses the default context", p(body.clone()))
        .settings(on(first))
        .has("StartMethodFixed", fixed)];
    if let Some((first, _)) = pythons {
        let before = PythonVersion {
            minor: first.minor - 1,
            ..first
        };
        probes.push(
            Probe::new("not on an older Python", p(body))
                .settings(on(before))
                .lacks("StartMethodFixed", fixed),
        );
    }
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

/// The probes of a row that does `SetStartMethod`.
pub(crate) fn set_start_method(c: &Callee, layer: Layer, method: Param) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
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
        child_by(&launchers::PROCESS_START, StartMethod::Spawn),
    )]
}

/// The probes of a row that does `HandlesRequests`.
pub(crate) fn handles_requests(c: &Callee) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
    let handler = || {
        p(py(&[
            "torch.cuda.init()",
            &format!("@{x}('/score')"),
            "def score():",
            "    return torch.zeros(1, device='cuda:1')",
        ]))
    };
    let preloading = Settings {
        preloading_server: Some(&launchers::SERVER_WORKER),
        ..Settings::default()
    };
    vec![
        Probe::new("a preloading server forks the handler's workers", handler())
            .settings(preloading)
            .has(
                "a forked server worker inheriting CUDA",
                inheriting(&launchers::SERVER_WORKER),
            ),
        Probe::new(
            "a server that imports in each worker forks nothing",
            handler(),
        )
        .lacks("server worker child", child(&launchers::SERVER_WORKER)),
    ]
}

/// The probes of a row that does `ForkedTask`.
pub(crate) fn forked_task(c: &Callee) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
    vec![
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
            inheriting(&launchers::TASK_WORKER),
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
        .lacks("task worker child", child(&launchers::TASK_WORKER)),
    ]
}

/// The probes of a row that does `Waits`.
pub(crate) fn waits(c: &Callee) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
    vec![
        Probe::new("blocks for other processes", p(py(&[&format!("{x}(1)")])))
            .has("WaitedForOthers", waited),
    ]
}

/// The probes of a row that does `RunsCommand`.
pub(crate) fn runs_command(c: &Callee) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
    vec![
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
    ]
}

/// The probes of a row that does `EndsProcess`.
pub(crate) fn ends_process(c: &Callee) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
    vec![Probe::new(
        "nothing after it runs",
        p(py(&[
            "torch.cuda.init()",
            &format!("{x}()"),
            "t = torch.zeros(1, device='cuda:1')",
        ])),
    )
    .has("the CudaInit before it (control)", init_at(Init::Context))
    .lacks("CUDA object", any_object)]
}
