//! Probes of the environment variable rows: what reading or writing each does.

use super::*;

pub(crate) fn env_probes(row: &EnvRow) -> Result<Vec<Probe>, String> {
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
                    .has("a forked child (control)", child(&launchers::OS_FORK))
                    .lacks("child inheriting CUDA", inheriting(&launchers::OS_FORK)),
                );
            }
            out
        }
    })
}
