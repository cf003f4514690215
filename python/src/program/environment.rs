//! The project's installed packages: the site-packages folders of its Python environment, where an
//! absolute import that no project module answers is looked for, when no library row covers the
//! package (rows decide torch, transformers, multiprocessing...: their code is never read). Their
//! files join the program as imported modules, never checked: a finding whose place is in one is
//! reported at the project's call that reached it.

use std::path::{Path, PathBuf};

use crate::source::FileId;

use super::Program;

/// The most files of installed packages one program reads: the project's imports reach them
/// lazily, but a package that imports half of the environment must not make the run read it all.
pub const MAX_ENVIRONMENT_FILES: usize = 1_000;

/// The site-packages folders of the project's environment, searched in order.
#[derive(Clone, Debug, Default)]
pub struct Environment {
    /// Canonical (links resolved), as the loader compares files.
    site_packages: Vec<PathBuf>,
}

impl Environment {
    /// The environment of these site-packages folders (those that exist).
    pub fn new(site_packages: Vec<PathBuf>) -> Environment {
        let mut roots: Vec<PathBuf> = site_packages
            .iter()
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .filter(|p| p.is_dir())
            .collect();
        let mut seen = std::collections::HashSet::new();
        roots.retain(|r| seen.insert(r.clone()));
        Environment {
            site_packages: roots,
        }
    }

    pub fn site_packages(&self) -> &[PathBuf] {
        &self.site_packages
    }

    pub fn is_empty(&self) -> bool {
        self.site_packages.is_empty()
    }

    /// The site-packages folder `path` (canonical) lies in, if any.
    pub fn root_of(&self, path: &Path) -> Option<&Path> {
        self.site_packages
            .iter()
            .find(|r| path.starts_with(r))
            .map(PathBuf::as_path)
    }
}

/// Whether an import of the top-level package `top` is followed into the environment: no library
/// row, prefix row or import row names it, it is not a GPU package (whose rows decide), and
/// `libraries::installed` does not leave it to the rows.
pub fn followed(top: &str) -> bool {
    use crate::libraries;
    static COVERED: std::sync::OnceLock<rustc_hash::FxHashSet<&'static str>> =
        std::sync::OnceLock::new();
    let covered = COVERED.get_or_init(|| {
        let first = |name: &'static str| name.split('.').next().unwrap_or(name);
        libraries::rows()
            .map(|r| first(r.name))
            .chain(libraries::prefix_rows().map(|r| first(r.prefix)))
            .chain(libraries::import_rows().map(|r| first(r.module)))
            .chain(libraries::GPU_PACKAGES.iter().copied())
            .chain(libraries::installed::NOT_FOLLOWED.iter().map(|n| n.package))
            .collect()
    });
    !top.is_empty() && !covered.contains(top)
}

impl Program {
    /// Whether `id` is a file of an installed package (read through an import, never checked).
    pub fn in_environment(&self, id: FileId) -> bool {
        self.files.get(id.0 as usize).is_some_and(|f| f.environment)
    }

    /// Whether the program read any file of an installed package.
    pub fn reads_environment(&self) -> bool {
        self.environment_files > 0
    }

    /// The installed package `id` belongs to (its top-level name), for messages.
    pub fn environment_package(&self, id: FileId) -> Option<String> {
        let file = self.files.get(id.0 as usize)?;
        if !file.environment {
            return None;
        }
        let path = std::fs::canonicalize(&file.path).ok()?;
        let root = self.environment.root_of(&path)?;
        let first = path.strip_prefix(root).ok()?.components().next()?;
        let name = first.as_os_str().to_str()?;
        Some(name.strip_suffix(".py").unwrap_or(name).to_string())
    }
}
