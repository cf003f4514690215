//! Running probes: a probe's program interpreted as gpulint runs it, its effects, and the report of
//! a table's failures.

use super::*;

pub(crate) fn effects(probe: &Probe) -> Result<Vec<Effect>, String> {
    // Kept until the program is analysed: its modules are read from it.
    let mut folder = None;
    let program = if probe.modules.is_empty() {
        Program::build(vec![Input::Text {
            path: "main.py".into(),
            text: probe.text.clone(),
        }])
    } else {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let main = dir.path().join("main.py");
        std::fs::write(&main, &probe.text).map_err(|e| e.to_string())?;
        for (file, text) in &probe.modules {
            std::fs::write(dir.path().join(file), text).map_err(|e| e.to_string())?;
        }
        folder = Some(dir);
        Program::build(vec![Input::Path(main)])
    };
    for (id, file) in program.files() {
        if file.module.is_err() {
            return Err(format!("{} does not parse", file.path.display()));
        }
        if id == FileId(0) && !program.is_relevant(id) {
            return Err("the program is not interpreted".into());
        }
    }
    let settings = probe.settings.clone();
    let cache = if probe.modules.is_empty() {
        ImportCache::<Log>::default()
    } else {
        ImportCache::<Log>::build(&program, settings.clone())
    };
    let effects = analyze::<Log>(&program, &cache, FileId(0), settings);
    drop(folder);
    Ok(effects)
}

/// One line per effect, for failure messages.
pub(crate) fn summary(effect: &Effect) -> String {
    let global = |o: &gpulint_core::effect::CudaObject| o.global.as_ref().map(|g| g.0.to_string());
    match effect {
        Effect::CudaInit {
            site,
            fails_in_child,
        } => format!(
            "CudaInit {:?} fails_in_child={fails_in_child}: {}",
            site.level, site.what
        ),
        Effect::CudaObjectCreated { object, what } => format!(
            "CudaObjectCreated {:?} global={:?}: {what}",
            object.index,
            global(object)
        ),
        Effect::CudaUsed {
            object,
            what,
            through_global,
            ..
        } => format!(
            "CudaUsed {:?} through_global={through_global} global={:?}: {what}",
            object.index,
            global(object)
        ),
        Effect::DeviceBound {
            binding, chooses, ..
        } => format!("DeviceBound {binding:?} chooses={chooses}"),
        Effect::CachedDeviceReturned { global, .. } => {
            format!("CachedDeviceReturned global={}", global.0)
        }
        Effect::ProcessGroupCreated {
            backend,
            device_given,
            ..
        } => format!("ProcessGroupCreated {backend:?} device_given={device_given}"),
        Effect::CollectiveRun {
            name,
            explicit_device,
            ..
        } => format!("CollectiveRun {name} explicit_device={explicit_device}"),
        Effect::ChildStarted(c) => format!(
            "ChildStarted {:?} {:?} parent_init={:?} code={:?}",
            c.launcher.subject,
            c.start_method,
            c.parent_init.as_ref().map(|i| i.level),
            c.code
        ),
        Effect::ChildRuns { code } => format!("ChildRuns {code}"),
        Effect::NotFollowed { .. } => "NotFollowed".into(),
        Effect::StartMethodSet {
            method,
            at_module_scope,
            ..
        } => format!("StartMethodSet {method:?} at_module_scope={at_module_scope}"),
        Effect::StartMethodFixed {
            creates_objects, ..
        } => format!("StartMethodFixed creates_objects={creates_objects}"),
        Effect::EnvWritten { key, value, .. } => format!("EnvWritten {key}={value:?}"),
        Effect::UnmappedLoad { what, file, .. } => format!("UnmappedLoad {what} file={file:?}"),
        Effect::CheckpointSaved {
            file, host_only, ..
        } => format!("CheckpointSaved {file} host_only={host_only}"),
        Effect::DeviceFromGlobalRank { .. } => "DeviceFromGlobalRank".into(),
        Effect::Launched { nodes, .. } => format!("Launched {nodes:?}"),
        Effect::UnserializableSent(sent) => format!(
            "UnserializableSent {:?} {:?} {:?}: {}",
            sent.handed, sent.start_method, sent.why, sent.name
        ),
        Effect::GlobalWritten {
            global, in_place, ..
        } => format!("GlobalWritten {} in_place={in_place}", global.name),
        Effect::GlobalRead {
            global,
            defined,
            owner,
            ..
        } => format!("GlobalRead {} defined={defined} owner={owner}", global.name),
        Effect::CudaObjectSent {
            object,
            channel,
            what,
            ..
        } => format!(
            "CudaObjectSent {channel:?} by_handle={}: {what}",
            object.by_handle
        ),
        Effect::WaitedForOthers { .. } => "WaitedForOthers".to_string(),
        Effect::CudaHeld { what, .. } => format!("CudaHeld: {what}"),
        Effect::HostCompute { what, .. } => format!("HostCompute: {what}"),
        Effect::HostThreadsLimited { .. } => "HostThreadsLimited".to_string(),
        Effect::ThreadStarted { .. } => "ThreadStarted".to_string(),
        Effect::ThreadEnded { .. } => "ThreadEnded".to_string(),
        Effect::CurrentDeviceUsed { what, .. } => format!("CurrentDeviceUsed: {what}"),
    }
}

/// The failures of a table's probes.
#[derive(Default)]
pub(crate) struct Report {
    pub(crate) failures: Vec<String>,
    pub(crate) probes: usize,
    pub(crate) allowed: Vec<String>,
}

impl Report {
    /// Runs one row's probes (`Err`: the row is wrong without running anything).
    pub(crate) fn row(&mut self, row: &str, probes: Result<Vec<Probe>, String>) {
        let probes = match probes {
            Ok(p) if p.is_empty() => Err("no probe".to_string()),
            other => other,
        };
        let probes = match probes {
            Ok(p) => p,
            Err(why) => return self.fail(row, "the row itself", format!("  {why}\n")),
        };
        for probe in probes {
            self.probes += 1;
            let mut out = String::new();
            match effects(&probe) {
                Err(why) => writeln!(out, "  {why}").unwrap(),
                Ok(effects) => {
                    for (what, check) in &probe.expect {
                        if !check(&effects) {
                            writeln!(out, "  expected: {what}").unwrap();
                        }
                    }
                    if !out.is_empty() {
                        writeln!(out, "  effects seen:").unwrap();
                        for e in &effects {
                            writeln!(out, "    {}", summary(e)).unwrap();
                        }
                        if effects.is_empty() {
                            writeln!(out, "    (none)").unwrap();
                        }
                    }
                }
            }
            if !out.is_empty() {
                let files = [("main.py", &probe.text)]
                    .into_iter()
                    .chain(probe.modules.iter().map(|(f, t)| (*f, t)));
                for (file, text) in files {
                    writeln!(out, "  {file}:").unwrap();
                    for line in text.lines() {
                        writeln!(out, "    | {line}").unwrap();
                    }
                }
                self.fail(row, &probe.label, out);
            }
        }
    }

    pub(crate) fn fail(&mut self, row: &str, label: &str, detail: String) {
        if KNOWN_FAILURES.contains(&(row, label)) {
            self.allowed.push(format!("{row}: {label}"));
        } else {
            self.failures.push(format!("`{row}`: {label}\n{detail}"));
        }
    }

    pub(crate) fn assert(self, table: &str) {
        eprintln!(
            "{table}: {} probes, {} known failures {:?}",
            self.probes,
            self.allowed.len(),
            self.allowed
        );
        assert!(self.probes > 0, "{table}: no rows");
        assert!(
            self.failures.is_empty(),
            "{} failing probe(s) of {table}:\n\n{}",
            self.failures.len(),
            self.failures.join("\n")
        );
    }
}
