//! Probes of the behaviour kinds of torch's rows (`libraries/torch.rs`): devices, tensors, saving
//! and loading, process groups and collectives, data loaders.

use super::*;

/// The probes of a row that does `Collective`.
pub(crate) fn collective_probes(c: &Callee, device: &[Param], group: Param) -> Vec<Probe> {
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

/// The probes of a row that does `Loader`.
pub(crate) fn loader(c: &Callee, does: Behaviour) -> Vec<Probe> {
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
                child_by(&launchers::DATA_LOADER, StartMethod::Fork),
            )
            .has(
                "the child running `Items.__getitem__`",
                runs("Items.__getitem__"),
            ),
    ]
    .into_iter()
    .chain(collate_fn.map(|collate_fn| {
        Probe::new(
            format!("workers run `{}`", collate_fn.name),
            run(&[(collate_fn, "collate")]),
        )
        .has("the child running `collate`", runs("collate"))
    }))
    .chain([
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
            child_by(&launchers::DATA_LOADER, StartMethod::Spawn),
        ),
        Probe::new(
            "without workers, fetches the items in this process",
            run(&[(num_workers, "0")]),
        )
        .lacks("child", any_child)
        .has("a use of the batch `b`", uses("b")),
    ])
    .collect()
}

/// The probes of a row that does `CudaTensorType`.
pub(crate) fn cuda_tensor_type(c: &Callee) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
    vec![
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
    ]
}

/// The probes of a row that does `BindsDevice`.
pub(crate) fn binds_device(c: &Callee, device: Param) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
    vec![
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
    ]
}

/// The probes of a row that does `Factory`.
pub(crate) fn factory(
    c: &Callee,
    device: Param,
    pin_memory: Option<Param>,
    default_device: bool,
    host_tensor: bool,
) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
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

/// The probes of a row that does `Computes`.
pub(crate) fn computes(c: &Callee) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
    vec![
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
    ]
}

/// The probes of a row that does `LimitsHostThreads`.
pub(crate) fn limits_host_threads(c: &Callee, count: Param) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
    vec![
        Probe::new("one thread", p(py(&[&call(x, &[(count, "1")])])))
            .has("HostThreadsLimited", threads_limited),
        Probe::new("four threads", p(py(&[&call(x, &[(count, "4")])])))
            .lacks("HostThreadsLimited", threads_limited),
    ]
}

/// The probes of a row that does `CreatesParameters`.
pub(crate) fn creates_parameters(c: &Callee) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
    vec![
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
    ]
}

/// The probes of a row that does `DeviceValue`.
pub(crate) fn device_value(c: &Callee, kind: Param, index: Param) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
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

/// The probes of a row that does `SetsDefaultDevice`.
pub(crate) fn sets_default_device(c: &Callee, device: Param) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
    vec![
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
    ]
}

/// The probes of a row that does `SavesTensors`.
pub(crate) fn saves_tensors(c: &Callee, obj: Param, file: Param) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
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

/// The probes of a row that does `LoadsTensors`.
pub(crate) fn loads_tensors(c: &Callee, map_location: Param, file: Param) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
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

/// The probes of a row that does `ReadsGlobalRank`.
pub(crate) fn reads_global_rank(c: &Callee) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
    vec![
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
        Probe::new(
            "modulo a parallel group's size it is still a position in the job",
            p(py(&[
                "tp_size = 2",
                &format!("v = {x}() % tp_size"),
                "torch.cuda.set_device(v)",
            ])),
        )
        .has("a device from the global rank", from_global_rank),
    ]
}

/// The probes of a row that does `ReadsRank`.
pub(crate) fn reads_rank(c: &Callee) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
    vec![Probe::new(
        "returns a per-worker rank",
        p(py(&[&format!("v = {x}()"), "t = torch.zeros(1, device=v)"])),
    )
    .has("a tensor on a per-worker device", object(PER_WORKER))]
}

/// The probes of a row that does `ProcessGroup`.
pub(crate) fn process_group(
    c: &Callee,
    backend: Param,
    device_id: Param,
    world_size: Param,
) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
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

/// The probes of a row that does `Subgroup`.
pub(crate) fn subgroup(c: &Callee, backend: Param) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
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

/// The probes of a row that does `LibraryDataset`.
pub(crate) fn library_dataset(
    c: &Callee,
    transforms: &'static [&'static str],
) -> Result<Vec<Probe>, String> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
    if transforms.is_empty() {
        return Err("a library dataset with no transform keywords".into());
    }
    let iterate = py(&[
        "loader = torch.utils.data.DataLoader(ds, num_workers=2)",
        "for b in loader:",
        "    pass",
    ]);
    Ok(transforms
        .iter()
        .map(|k| {
            let ds = format!("ds = {x}('root', {k}=tf)\n{iterate}");
            Probe::new(
                format!("`{k}` runs in the loader's workers"),
                p(format!("def tf(v):\n    return v\n\n{}", main_guard(&ds))),
            )
            .has("the child running `tf`", runs("tf"))
        })
        .collect())
}

/// The probes of a row that does `IndexesArguments`.
pub(crate) fn indexes_arguments(c: &Callee) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
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
            after(inheriting(&launchers::DATA_LOADER), uses("x")),
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
            after(inheriting(&launchers::DATA_LOADER), uses("x")),
        ),
        Probe::new(
            "CPU tensors are not CUDA uses",
            run(&["x = torch.zeros(4)", &format!("ds = {x}(x)")]),
        )
        .has(
            "a forked loader child (control)",
            child(&launchers::DATA_LOADER),
        )
        .lacks("use of `x`", uses("x")),
    ]
}

/// The probes of a row that does `Compose`.
pub(crate) fn compose(c: &Callee, steps: Param) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
    vec![Probe::new(
        "calls each step",
        p(py(&[
            "def step(v):",
            "    return torch.zeros(1, device=v)",
            &format!("tf = {}", call(x, &[(steps, "[step]")])),
            "t = tf('cuda:1')",
        ])),
    )
    .has("a tensor on cuda:1", object(CUDA_1))]
}

/// The probes of a row that does `ToHost`.
pub(crate) fn to_host(c: &Callee) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
    vec![Probe::new(
        "copies a tensor's value to the host",
        p(py(&[
            "r = torch.zeros(1, device='cuda:1')",
            &format!("y = {x}(r)"),
            "print(y)",
        ])),
    )
    .has("a use of `r` (control)", uses("r"))
    .lacks("use of `y`", uses("y"))]
}

/// The probes of a row that does `NarrowsVisibility`.
pub(crate) fn narrows_visibility(c: &Callee, param: &'static str) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
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
