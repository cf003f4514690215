//! How a project serves its web application, as far as forking goes: a server that imports the
//! application in its master process and then forks the workers (gunicorn's `preload_app = True`
//! in its configuration file, or `--preload` on a command line in a Procfile or script). These are
//! facts about how the code runs, like its imports, so they are read under `--isolated` too.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use gpulint_python::libraries::processes::{Preload, PreloadingServer, PRELOADING_SERVERS};

/// A preloading server's launcher, where one was found.
pub type Found = Option<&'static gpulint_core::effect::Launcher>;

/// Files whose lines start servers.
const LAUNCH_FILES: &[&str] = &[
    "Procfile",
    "Dockerfile",
    "Makefile",
    "docker-compose.yml",
    "docker-compose.yaml",
    "supervisord.conf",
];
/// What is read of one file, and how many of a folder's shell scripts.
const MAX_READ: u64 = 256 * 1024;
const MAX_SCRIPTS: usize = 32;
/// How many folders up from a checked file are searched, at most to the project's root.
const MAX_LEVELS: usize = 8;

/// Answers, per folder, whether the project around it preloads its application in a forking
/// server; each folder is read once.
#[derive(Default)]
pub struct Servers {
    by_dir: HashMap<PathBuf, Found>,
    /// The answer for each folder files were asked about: most share a few folders.
    by_start: HashMap<PathBuf, Found>,
}

impl Servers {
    /// The preloading server the project `file` belongs to declares, as its launcher: in the
    /// file's folder or one above it, up to the folder that holds `pyproject.toml`.
    pub fn preloads(&mut self, file: &Path) -> Found {
        let start = file.parent()?;
        if let Some(&known) = self.by_start.get(start) {
            return known;
        }
        let found = self.project_preloads(start);
        self.by_start.insert(start.to_path_buf(), found);
        found
    }

    fn project_preloads(&mut self, start: &Path) -> Found {
        project_dirs(start, MAX_LEVELS).find_map(|d| self.dir_preloads(d))
    }

    fn dir_preloads(&mut self, dir: &Path) -> Found {
        if let Some(&known) = self.by_dir.get(dir) {
            return known;
        }
        let launchers: Vec<String> = LAUNCH_FILES
            .iter()
            .map(|name| dir.join(name))
            .chain(scripts(dir))
            .filter_map(|path| read(&path))
            .collect();
        let found = PRELOADING_SERVERS
            .iter()
            .find(|server| {
                config_files(dir, server)
                    .iter()
                    .any(|t| config_preloads(server, t))
                    || launchers.iter().any(|t| command_preloads(server, t))
            })
            .map(|server| &server.launcher);
        self.by_dir.insert(dir.to_path_buf(), found);
        found
    }
}

/// `start` and the folders above it, at most `levels` of them, up to the one that holds the
/// project's `pyproject.toml` (or `.git`).
pub(crate) fn project_dirs(start: &Path, levels: usize) -> impl Iterator<Item = &Path> {
    let mut next = Some(start);
    std::iter::from_fn(move || {
        let dir = next?;
        let root = dir.join("pyproject.toml").is_file() || dir.join(".git").exists();
        next = if root { None } else { dir.parent() };
        Some(dir)
    })
    .take(levels)
}

/// The folder's shell scripts, a bounded number of them.
pub(crate) fn scripts(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "sh"))
        .take(MAX_SCRIPTS)
        .collect()
}

/// A regular file's start, as text; `None` for anything else (a FIFO is never waited on).
pub(crate) fn read(path: &Path) -> Option<String> {
    let bytes = gpulint_core::fsio::read_start(path, MAX_READ).ok()?;
    String::from_utf8(bytes).ok()
}

/// The texts of the server's configuration files in `dir`: by name, and (a bounded number of)
/// files of its extension that hold its section.
fn config_files(dir: &Path, server: &PreloadingServer) -> Vec<String> {
    let named = server.files.iter().filter_map(|name| read(&dir.join(name)));
    let Some((extension, section)) = server.section_files else {
        return named.collect();
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return named.collect();
    };
    let by_section = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == extension))
        .filter(|p| {
            !server
                .files
                .iter()
                .any(|n| p.file_name().is_some_and(|f| f == *n))
        })
        .take(MAX_SCRIPTS)
        .filter_map(|p| read(&p))
        .filter(|t| t.lines().any(|l| l.trim() == section));
    named.chain(by_section).collect()
}

/// A server configuration file that makes the server preload (`preload_app = True` for gunicorn;
/// for uWSGI, a master or several workers without `lazy-apps`).
fn config_preloads(server: &PreloadingServer, text: &str) -> bool {
    match server.preload {
        Preload::OptIn { setting, .. } => {
            let setting = format!("{setting}=True");
            text.lines().any(|line| {
                let code = line.split('#').next().unwrap_or_default();
                let compact: String = code.chars().filter(|c| !c.is_whitespace()).collect();
                compact == setting
            })
        }
        Preload::OptOut {
            settings, forks, ..
        } => {
            let values = ini_settings(text);
            let set = |keys: &[&str], several: bool| {
                values
                    .iter()
                    .any(|(k, v)| keys.contains(&k.as_str()) && truthy(v, several))
            };
            set(forks, true) && !set(settings, false)
        }
    }
}

/// `key = value` lines of an ini file, comments and sections dropped.
fn ini_settings(text: &str) -> Vec<(String, String)> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.starts_with(['#', ';', '[']))
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_lowercase()))
        .collect()
}

/// A setting's value that turns it on; `several`: a number counts only above 1 (one worker and
/// no master forks nothing).
fn truthy(value: &str, several: bool) -> bool {
    match value.parse::<u64>() {
        Ok(n) => n > u64::from(several),
        Err(_) => matches!(value, "true" | "yes" | "on" | "y"),
    }
}

/// A command line that starts the server preloading (`gunicorn --preload ...`; `uwsgi --master`
/// or several `--processes` without `--lazy-apps`).
fn command_preloads(server: &PreloadingServer, text: &str) -> bool {
    text.lines().any(|line| {
        let code = line.trim_start();
        if code.starts_with('#') {
            return false;
        }
        // Words of a shell line or of an exec-form `CMD ["uwsgi", "--master", ...]`.
        let words: Vec<&str> = code
            .split_whitespace()
            .map(|w| w.trim_matches(|c| matches!(c, '"' | '\'' | ',' | '[' | ']')))
            .collect();
        if !words
            .iter()
            .any(|w| w.rsplit('/').next() == Some(server.command))
        {
            return false;
        }
        match server.preload {
            Preload::OptIn { flag, .. } => words.contains(&flag),
            Preload::OptOut { flags, forks, .. } => {
                let forking = words.iter().enumerate().any(|(i, w)| {
                    let (name, inline) = match w.split_once('=') {
                        Some((n, v)) => (n, Some(v)),
                        None => (*w, None),
                    };
                    forks.contains(&name)
                        && match inline.or_else(|| words.get(i + 1).copied()) {
                            Some(v) if !v.starts_with('-') => truthy(v, true),
                            _ => true,
                        }
                });
                forking && !words.iter().any(|w| flags.contains(w))
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_config_file_or_a_command_line_preloads() {
        let g = &PRELOADING_SERVERS[0];
        assert!(config_preloads(
            g,
            "workers = 2\npreload_app = True  # share memory\n"
        ));
        assert!(!config_preloads(
            g,
            "# preload_app = True\npreload_app = False\n"
        ));
        assert!(command_preloads(
            g,
            "web: gunicorn --preload -w 4 app:app\n"
        ));
        assert!(!command_preloads(
            g,
            "web: gunicorn -w 4 app:app\n# gunicorn --preload\n"
        ));
        assert!(!command_preloads(g, "web: uvicorn app:app --preload\n"));
        assert!(command_preloads(
            g,
            "CMD [\"gunicorn\", \"--preload\", \"app:app\"]\n"
        ));
    }

    #[test]
    fn uwsgi_preloads_unless_lazy_and_only_when_it_forks() {
        let u = &PRELOADING_SERVERS[1];
        assert_eq!(u.command, "uwsgi");
        let ini = "[uwsgi]\nmodule = app:app\nmaster = true\nprocesses = 4\n";
        assert!(config_preloads(u, ini));
        assert!(!config_preloads(u, &format!("{ini}lazy-apps = true\n")));
        // One process and no master: nothing is forked.
        assert!(!config_preloads(
            u,
            "[uwsgi]\nmodule = app:app\nprocesses = 1\n"
        ));
        assert!(config_preloads(
            u,
            "[uwsgi]\nworkers = 2\n; lazy-apps = true\n"
        ));
        assert!(command_preloads(
            u,
            "web: uwsgi --http :80 --master -p 4 -w app:app\n"
        ));
        assert!(command_preloads(
            u,
            "CMD [\"uwsgi\", \"--processes=2\", \"--module\", \"app\"]\n"
        ));
        assert!(!command_preloads(
            u,
            "web: uwsgi --master --lazy-apps -w app:app\n"
        ));
        assert!(!command_preloads(u, "web: uwsgi --http :80 -w app:app\n"));
        assert!(!command_preloads(
            u,
            "web: uwsgi --processes 1 -w app:app\n"
        ));
    }

    #[test]
    fn an_ini_with_a_uwsgi_section_is_read_whatever_its_name() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("pyproject.toml"), "[project]\n").unwrap();
        let file = root.path().join("app.py");
        std::fs::write(root.path().join("setup.ini"), "[metadata]\nprocesses = 4\n").unwrap();
        assert!(Servers::default().preloads(&file).is_none());
        std::fs::write(
            root.path().join("deploy.ini"),
            "[uwsgi]\nmodule = app:app\nmaster = true\n",
        )
        .unwrap();
        assert!(Servers::default().preloads(&file).is_some());
    }

    #[test]
    fn the_project_folder_is_searched_from_the_file_up() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("pyproject.toml"), "[project]\n").unwrap();
        std::fs::create_dir(root.path().join("service")).unwrap();
        let file = root.path().join("service").join("app.py");
        let mut servers = Servers::default();
        assert!(servers.preloads(&file).is_none());
        std::fs::write(
            root.path().join("Procfile"),
            "web: gunicorn --preload service.app:app\n",
        )
        .unwrap();
        let mut servers = Servers::default();
        assert!(servers.preloads(&file).is_some());
    }
}
