//! Probes of the behaviour kinds of the Hugging Face rows (`libraries/huggingface.rs`): launchers,
//! models, answers, datasets that fork, parallel engines, objects whose methods are rows.

use super::*;

/// The probes of a row that does `BindsDeviceUnderLauncher`.
pub(crate) fn under_launcher(c: &Callee, init: Init, owner: bool) -> Vec<Probe> {
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

/// The probes of a row that does `LoadsModel`.
pub(crate) fn loads_model(
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

/// An object's rows hold when it is first bound to a name of the program's own.
pub(crate) fn object_rows(c: &Callee) -> Result<Vec<Probe>, String> {
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

/// The dataset method that maps a function, and its `function` and `with_rank` parameters.
pub(crate) fn dataset_map() -> (&'static str, Param, Param) {
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

/// The probes of a row that does `Answers`.
pub(crate) fn answers(c: &Callee, answer: bool) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
    let branches =
        |then: &str, other: &str| p(format!("if {x}():\n    {then}\nelse:\n    {other}\n"));
    let cuda = "y = torch.zeros(1, device='cuda:1')";
    let host = "y = 0";
    let (taken, not_taken) = match answer {
        true => (branches(cuda, host), branches(host, cuda)),
        false => (branches(host, cuda), branches(cuda, host)),
    };
    vec![
        Probe::new("the branch its answer takes runs", taken).has("a CUDA object", any_object),
        Probe::new("the other branch does not", not_taken).lacks("CUDA object", any_object),
    ]
}

/// The probes of a row that does `ParallelEngine`.
pub(crate) fn parallel_engine(c: &Callee, does: Behaviour) -> Vec<Probe> {
    let Behaviour::ParallelEngine {
        parallel,
        method_env,
        package,
        spawns_since,
        in_child_since,
        in_process_env: (key, in_process),
        in_process_arg: (arg, in_process_value),
    } = does
    else {
        unreachable!("only parallel engine rows are probed here")
    };
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
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
        .lacks("engine workers", child(&launchers::ENGINE_WORKERS)),
        Probe::new(
            "one GPU, a recent or unknown version: the engine in a child",
            p(py(&[&format!("e = {x}(model='m')")])),
        )
        .has("the engine's process", child(&launchers::ENGINE_WORKERS))
        .lacks("a CUDA object in the caller", object(CURRENT)),
        Probe::new(
            format!("`{key}={in_process}` keeps the engine here"),
            p(py(&[
                &format!("os.environ['{key}'] = '{in_process}'"),
                &format!("e = {x}(model='m')"),
            ])),
        )
        .has("a CUDA object", object(CURRENT))
        .lacks("engine workers", child(&launchers::ENGINE_WORKERS)),
        Probe::new(
            format!("`{}=\"{in_process_value}\"` starts no process", arg.name),
            p(py(&[&format!(
                "e = {x}(model='m', {}=2, {}='{in_process_value}')",
                parallel[0].name, arg.name
            )])),
        )
        .has("a CUDA object", object(CURRENT))
        .lacks("engine workers", child(&launchers::ENGINE_WORKERS)),
        Probe::new(
            "several GPUs after CUDA, a recent or unknown version: spawn",
            p(py(&["torch.cuda.init()", &format!("e = {several}")])),
        )
        .has(
            "spawned engine workers",
            child_by(&launchers::ENGINE_WORKERS, StartMethod::Spawn),
        ),
        Probe::new(
            "several GPUs, a version before the switch: fork",
            p(py(&["torch.cuda.init()", &format!("e = {several}")])),
        )
        .settings(old.clone())
        .has(
            "forked engine workers inheriting CUDA",
            inheriting(&launchers::ENGINE_WORKERS),
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
            child_by(&launchers::ENGINE_WORKERS, StartMethod::Spawn),
        ),
    ]
}

/// The probes of a row that does `ForkingDataset`.
pub(crate) fn forking_dataset(c: &Callee) -> Vec<Probe> {
    let x = c.expr.as_str();
    let p = |body: String| program(c, &body);
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
