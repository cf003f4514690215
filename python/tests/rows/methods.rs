//! Methods and attributes: probes on a receiver of the row's kind, one per way to get one.

use super::*;

/// Lines that bind `r` to a receiver of kind `on` (after [`WORKERS`]), one per way to get one.
pub(crate) fn receivers(on: Receiver) -> Vec<String> {
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
        Receiver::Thread => &[
            &[
                "import threading",
                "r = threading.Thread(target=work, args=('cuda:1',))",
            ],
            &[
                "import threading",
                "class T(threading.Thread):",
                "    def run(self):",
                "        work('cuda:1')",
                "r = T()",
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
pub(crate) fn receiver_device(on: Receiver) -> Option<DeviceIndex> {
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
        | Receiver::Manager
        | Receiver::Thread => None,
    }
}

/// One probe per way to get a receiver of kind `on`: workers, the receiver `r`, then `body`.
pub(crate) fn on_receivers(on: Receiver, label: &str, body: &str) -> Vec<Probe> {
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

pub(crate) fn method_probes(row: &MethodRow) -> Vec<Probe> {
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
                p.has("a child", child(&launchers::PROCESS_START))
                    .has("the child's tensor on cuda:1", object(CUDA_1))
            })
        }
        MethodBehaviour::StartsThread => {
            each(on, "runs the thread here", py(&[&format!("{m}()")]), &|p| {
                p.has("ThreadStarted", |e| {
                    matches!(e, Effect::ThreadStarted { .. })
                })
                .has("the thread's tensor on cuda:1", object(CUDA_1))
                .lacks("a child", |e| matches!(e, Effect::ChildStarted(_)))
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
        MethodBehaviour::Metadata => each(
            cuda_on,
            "reads metadata, not a tensor",
            py(&[&format!("y = {m}()"), "print(y)"]),
            &|p| {
                p.has("a use of `r` (control)", uses("r"))
                    .lacks("use of `y`", uses("y"))
            },
        ),
        MethodBehaviour::LoadsState => super::torch_ops::loads_state(row.name),
        MethodBehaviour::Parameters => super::models::parameters(row.name),
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
        MethodBehaviour::ForksWorkers(row) => forks_workers(m, on, row, &each),
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
                p.has("a dataset-map child", child(&launchers::DATASET_MAP))
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

pub(crate) fn attribute_probes(row: &AttributeRow) -> Vec<Probe> {
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
        AttributeBehaviour::RankInJob | AttributeBehaviour::RankOnNode => {
            let global = row.does == AttributeBehaviour::RankInJob;
            let body = format!("{read}torch.cuda.set_device(v)\n");
            on_receivers(row.on, "a rank used as the device", &body)
                .into_iter()
                .map(|p| {
                    if global {
                        p.has("a device from the global rank", from_global_rank)
                    } else {
                        p.lacks("a device from the global rank", from_global_rank)
                    }
                })
                .collect()
        }
    }
}

/// Probes `body` on each receiver of a kind, checked by the given check.
type OnEach<'a> = dyn Fn(Receiver, &str, String, &dyn Fn(Probe) -> Probe) -> Vec<Probe> + 'a;

/// A `ForksWorkers` method: [`forking::cases`] on each receiver.
fn forks_workers(m: &str, on: Receiver, row: &'static ForkingCall, each: &OnEach) -> Vec<Probe> {
    forking::cases(m, row)
        .into_iter()
        .flat_map(|(label, body, check)| each(on, label, body, &*check))
        .collect()
}
