//! Probes of the import rows: what importing each module does.

use super::*;

pub(crate) fn import_probes(row: &ImportRow) -> Result<Vec<Probe>, String> {
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
    let package = module.split('.').next().unwrap_or(module);
    // A row for some releases acts where the project pins one of them.
    let pinned = row.init_in.map(|(since, _)| Settings {
        requirements: pin(package, since),
        ..Settings::default()
    });
    let mut out = Vec::new();
    for import in &imports {
        let probe = Probe::new(format!("`{import}`"), format!("import torch\n{import}\n"));
        let probe = match &pinned {
            Some(settings) => probe.settings(settings.clone()),
            None => probe,
        };
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
    out.extend(release_probes(row, package, pinned));
    let Some((key, value)) = row.sets_env else {
        return Ok(out);
    };
    if let Some(since) = row.sets_env_since {
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

fn pin(package: &str, version: [u32; 3]) -> gpulint_python::requirements::Requirements {
    let [major, minor, patch] = version;
    let spec = format!("{package}=={major}.{minor}.{patch}");
    gpulint_python::requirements::Requirements::parse([spec.as_str()])
}

/// A row whose CUDA effect holds for some releases: silent where the project's version is not
/// known, older, or from the release that stopped it; and silent with its switch set.
fn release_probes(row: &ImportRow, package: &str, pinned: Option<Settings>) -> Vec<Probe> {
    let (Some((since, before)), Some(pinned)) = (row.init_in, pinned) else {
        return Vec::new();
    };
    let module = row.module;
    let text = format!("import torch\nimport {module}\n");
    let mut out = vec![
        Probe::new(format!("`import {module}`, version unknown"), text.clone())
            .lacks("CudaInit", any_init),
    ];
    let older = [since[0], since[1].saturating_sub(1), 0];
    let mut silent_at = vec![older];
    silent_at.extend(before);
    for version in silent_at
        .into_iter()
        .filter(|v| *v < since || Some(*v) == before)
    {
        out.push(
            Probe::new(format!("`import {module}` at {version:?}"), text.clone())
                .settings(Settings {
                    requirements: pin(package, version),
                    ..Settings::default()
                })
                .lacks("CudaInit", any_init),
        );
    }
    if let Some((key, value)) = row.init_unless_env {
        let text =
            format!("import os\nos.environ[{key:?}] = {value:?}\nimport torch\nimport {module}\n");
        out.push(
            Probe::new(format!("`import {module}` after {key}={value}"), text)
                .settings(pinned)
                .lacks("CudaInit", any_init),
        );
    }
    out
}
