//! `--show-files` and `--show-settings`: what a check would read, and with which settings.

use std::io::Write;
use std::path::Path;

use gpulint_python::program::Input;
use gpulint_python::target::Platform;

use crate::config::Resolver;

/// Each file the check would read, one per line, relative to the working directory, sorted.
pub fn files(out: &mut impl Write, inputs: &[Input]) -> std::io::Result<()> {
    let mut shown: Vec<String> = inputs
        .iter()
        .map(|input| match input {
            Input::Path(path) | Input::Unreadable { path, .. } => path,
            Input::Bytes { path, .. } | Input::Text { path, .. } | Input::Held { path, .. } => path,
        })
        .map(|path| crate::paths::relative(path))
        .collect();
    shown.sort();
    shown.dedup();
    for path in shown {
        writeln!(out, "{path}")?;
    }
    Ok(())
}

/// The settings `path` is checked with (for a folder: those of a file directly in it), written
/// as the configuration keys that would give them.
pub fn settings(out: &mut impl Write, path: &Path, resolver: &mut Resolver) -> anyhow::Result<()> {
    let (file, shown) = if path.is_dir() {
        (
            path.join("__init__.py"),
            format!("files directly in {}", crate::paths::relative(path)),
        )
    } else {
        (path.to_path_buf(), crate::paths::relative(path))
    };
    let resolved = resolver.resolved(&file)?;
    let platform = match resolved.platform {
        Platform::Linux => "linux",
        Platform::Macos => "macos",
        Platform::Windows => "windows",
    };
    writeln!(out, "# Settings for {shown}")?;
    match &resolved.config_file {
        Some(config) => writeln!(out, "# configuration: {}", crate::paths::relative(config))?,
        None => writeln!(out, "# configuration: none (defaults)")?,
    }
    writeln!(
        out,
        "target-version = \"{}\"  # from {}",
        resolved.version, resolved.version_from
    )?;
    writeln!(out, "platform = \"{platform}\"")?;
    writeln!(
        out,
        "# a default multiprocessing context starts children by {}",
        resolved.start_method.name()
    )?;
    writeln!(out, "fail-on = \"{}\"", resolved.fail_on.as_str())?;
    writeln!(
        out,
        "excluded = {}  # by exclude or extend-exclude",
        resolved.excluded
    )?;
    if let Some(baseline) = &resolved.baseline {
        writeln!(out, "baseline = \"{}\"", crate::paths::relative(baseline))?;
    }
    match crate::config::find_environment(resolver, path) {
        Ok(environment) if environment.is_empty() => {
            writeln!(out, "# installed packages: none read (no environment)")?
        }
        Ok(environment) => {
            for folder in environment.site_packages() {
                let shown = crate::paths::relative(folder);
                writeln!(out, "# installed packages read from {shown}")?;
            }
        }
        Err(e) => writeln!(out, "# installed packages: {e}")?,
    }
    writeln!(out, "\n[rules]  # reported here, with their severity")?;
    for (code, severity) in &resolved.rules {
        writeln!(out, "{code} = \"{}\"", severity.as_str())?;
    }
    Ok(())
}
