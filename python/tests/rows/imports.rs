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
