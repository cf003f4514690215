//! How a project serves its web application, as far as forking goes: a server that imports the
//! application in its master process and then forks the workers (gunicorn's `preload_app = True`
//! in its configuration file, or `--preload` on a command line in a Procfile or script). These are
//! facts about how the code runs, like its imports, so they are read under `--isolated` too.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use gpulint_python::libraries::processes::{ServerHooks, SERVER_HOOKS};

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
    by_dir: HashMap<PathBuf, bool>,
    /// The answer for each folder files were asked about: most share a few folders.
    by_start: HashMap<PathBuf, bool>,
}

impl Servers {
    /// Whether the project `file` belongs to declares a preloading server: in the file's folder or
    /// one above it, up to the folder that holds `pyproject.toml`.
    pub fn preloads(&mut self, file: &Path) -> bool {
        let Some(start) = file.parent() else {
            return false;
        };
        if let Some(&known) = self.by_start.get(start) {
            return known;
        }
        let found = self.project_preloads(start);
        self.by_start.insert(start.to_path_buf(), found);
        found
    }

    fn project_preloads(&mut self, start: &Path) -> bool {
        project_dirs(start, MAX_LEVELS).any(|d| self.dir_preloads(d))
    }

    fn dir_preloads(&mut self, dir: &Path) -> bool {
        if let Some(&known) = self.by_dir.get(dir) {
            return known;
        }
        let launchers: Vec<String> = LAUNCH_FILES
            .iter()
            .map(|name| dir.join(name))
            .chain(scripts(dir))
            .filter_map(|path| read(&path))
            .collect();
        let found = SERVER_HOOKS.iter().any(|server| {
            server
                .files
                .iter()
                .any(|name| read(&dir.join(name)).is_some_and(|t| config_preloads(server, &t)))
                || launchers.iter().any(|t| command_preloads(server, t))
        });
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

/// A server configuration file that turns preloading on (`preload_app = True`).
fn config_preloads(server: &ServerHooks, text: &str) -> bool {
    let setting = format!("{}=True", server.preload_setting);
    text.lines().any(|line| {
        let code = line.split('#').next().unwrap_or_default();
        let compact: String = code.chars().filter(|c| !c.is_whitespace()).collect();
        compact == setting
    })
}

/// A command line that starts the server with preloading (`gunicorn --preload ...`).
fn command_preloads(server: &ServerHooks, text: &str) -> bool {
    text.lines().any(|line| {
        let code = line.trim_start();
        !code.starts_with('#')
            && code.contains(server.command)
            && code.split_whitespace().any(|w| w == server.preload_flag)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_config_file_or_a_command_line_preloads() {
        let g = &SERVER_HOOKS[0];
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
    }

    #[test]
    fn the_project_folder_is_searched_from_the_file_up() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("pyproject.toml"), "[project]\n").unwrap();
        std::fs::create_dir(root.path().join("service")).unwrap();
        let file = root.path().join("service").join("app.py");
        let mut servers = Servers::default();
        assert!(!servers.preloads(&file));
        std::fs::write(
            root.path().join("Procfile"),
            "web: gunicorn --preload service.app:app\n",
        )
        .unwrap();
        let mut servers = Servers::default();
        assert!(servers.preloads(&file));
    }
}
