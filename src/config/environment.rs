//! The project's Python environment, whose installed packages imports are followed into: found from
//! `--python`, else `[tool.gpulint] python`, else `VIRTUAL_ENV`, else a `.venv` or `venv` folder in
//! the project's root. Its site-packages folders are read from its layout, without running Python;
//! only an interpreter whose layout says nothing is asked, with a time limit.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use gpulint_python::program::{normalize, Environment};

use super::Resolver;

/// Which environment the user chose: a path (an interpreter or an environment's folder), or none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PythonChoice {
    Off,
    Path(PathBuf),
}

/// How long an interpreter may take to say where its packages are.
const ASK_TIMEOUT: Duration = Duration::from_secs(10);

/// The environment a run of `first` (the first checked path) reads packages from; empty when none
/// is found, or the user turned it off. An environment the user named that has no packages is an
/// error; one found otherwise is only skipped.
pub fn find(resolver: &mut Resolver, first: &Path) -> anyhow::Result<Environment> {
    let probe = match first.is_dir() {
        true => first.join("__init__.py"),
        false => first.to_path_buf(),
    };
    let start = normalize(&probe);
    let root = start
        .ancestors()
        .skip(1)
        .find(|dir| {
            ["pyproject.toml", "setup.py", "setup.cfg", ".git"]
                .iter()
                .any(|m| dir.join(m).exists())
        })
        .or_else(|| start.parent())
        .map(Path::to_path_buf);
    let found = match resolver.python_for(&probe)? {
        Some((PythonChoice::Off, _)) => Vec::new(),
        Some((PythonChoice::Path(path), by)) => named(&path, &by)?,
        None => found_without_naming(root.as_deref()),
    };
    // An installed package checked in place (its folder named) is the project: its modules are
    // read as the project's, not as its environment's.
    let checked = std::fs::canonicalize(first).unwrap_or_else(|_| start.clone());
    let found = found
        .into_iter()
        .filter(|site| match std::fs::canonicalize(site) {
            Ok(site) => !checked.starts_with(site),
            Err(_) => true,
        })
        .collect();
    Ok(with_editable_roots(found, root.as_deref()))
}

/// `VIRTUAL_ENV`'s packages, else those of a `.venv` or `venv` folder in the project's root.
fn found_without_naming(root: Option<&Path>) -> Vec<PathBuf> {
    if let Some(venv) = std::env::var_os("VIRTUAL_ENV").filter(|v| !v.is_empty()) {
        let found = site_packages_in(Path::new(&venv));
        if !found.is_empty() {
            return found;
        }
    }
    let Some(root) = root else {
        return Vec::new();
    };
    [".venv", "venv"]
        .iter()
        .map(|name| site_packages_in(&root.join(name)))
        .find(|found| !found.is_empty())
        .unwrap_or_default()
}

/// The environment of `site_packages`, with the folders its `.pth` files add (editable installs:
/// a package whose source is elsewhere), except those of the project itself (`root`), whose
/// modules are the project's own.
fn with_editable_roots(site_packages: Vec<PathBuf>, root: Option<&Path>) -> Environment {
    let root = root.and_then(|r| std::fs::canonicalize(r).ok());
    let mut roots = site_packages.clone();
    for site in &site_packages {
        for added in super::editable::added_folders(site) {
            let Ok(added) = std::fs::canonicalize(&added) else {
                continue;
            };
            let project = root
                .as_ref()
                .is_some_and(|r| added.starts_with(r) || r.starts_with(&added));
            if !project {
                roots.push(added);
            }
        }
    }
    Environment::new(roots)
}

/// The environment at `path` as the user named it: an environment's folder, or an interpreter
/// (its environment's layout, else what it says when asked).
fn named(path: &Path, by: &str) -> anyhow::Result<Vec<PathBuf>> {
    if path.is_dir() {
        let found = site_packages_in(path);
        if found.is_empty() {
            anyhow::bail!(
                "{by} {}: no site-packages folder in it (looked for lib/python3.*/site-packages and Lib/site-packages)",
                path.display()
            );
        }
        return Ok(found);
    }
    if !path.is_file() {
        anyhow::bail!("{by} {}: no such interpreter or folder", path.display());
    }
    // `<env>/bin/python` or `<env>\Scripts\python.exe`: the environment is the folder above.
    let prefix = path.parent().and_then(Path::parent);
    if let Some(found) = prefix.map(site_packages_in).filter(|f| !f.is_empty()) {
        return Ok(found);
    }
    ask(path, by)
}

/// The site-packages folders of the environment in `dir`: `lib/python3.*/site-packages` (and
/// `lib64`), `Lib/site-packages`; in name order, so that a run is the same on every machine.
pub fn site_packages_in(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for lib in ["lib", "lib64"] {
        let Ok(entries) = std::fs::read_dir(dir.join(lib)) else {
            continue;
        };
        let mut versions: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| e.file_name().to_str().is_some_and(is_python3_folder))
            .map(|e| e.path().join("site-packages"))
            .filter(|p| p.is_dir())
            .collect();
        versions.sort();
        found.extend(versions);
    }
    let windows = dir.join("Lib").join("site-packages");
    if windows.is_dir() {
        found.push(windows);
    }
    found
}

/// `python3.11`, `python3.14t`.
fn is_python3_folder(name: &str) -> bool {
    name.strip_prefix("python3")
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
}

/// Asks the interpreter at `python` where its packages are, within [`ASK_TIMEOUT`].
fn ask(python: &Path, by: &str) -> anyhow::Result<Vec<PathBuf>> {
    use std::process::{Command, Stdio};
    let script = "import site, sys\nfor p in site.getsitepackages(): print(p)\n";
    let mut child = Command::new(python)
        .args(["-I", "-c", script])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| anyhow::anyhow!("{by} {}: cannot run it: {e}", python.display()))?;
    let started = Instant::now();
    loop {
        if child.try_wait()?.is_some() {
            break;
        }
        if started.elapsed() > ASK_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            anyhow::bail!(
                "{by} {}: it did not say where its packages are within {} seconds",
                python.display(),
                ASK_TIMEOUT.as_secs()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output()?;
    let found: Vec<PathBuf> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(PathBuf::from)
        .filter(|p| p.is_dir())
        .collect();
    if !output.status.success() || found.is_empty() {
        anyhow::bail!(
            "{by} {}: it named no site-packages folder",
            python.display()
        );
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn site_packages_are_read_from_the_layout() {
        let dir = tempfile::tempdir().unwrap();
        let env = dir.path();
        for folder in [
            "lib/python3.12/site-packages",
            "lib/python3.11/site-packages",
            "lib/python2.7/site-packages",
            "lib/python3.13t/site-packages",
            "Lib/site-packages",
        ] {
            std::fs::create_dir_all(env.join(folder)).unwrap();
        }
        let found: Vec<String> = site_packages_in(env)
            .iter()
            .map(|p| p.strip_prefix(env).unwrap().display().to_string())
            .collect();
        assert_eq!(
            found,
            [
                "lib/python3.11/site-packages",
                "lib/python3.12/site-packages",
                "lib/python3.13t/site-packages",
                "Lib/site-packages",
            ]
        );
        assert!(site_packages_in(&env.join("nothing")).is_empty());
    }
}
