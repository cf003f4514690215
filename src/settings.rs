//! The analysis settings for each checked file: `--target-version` / `--platform` on the command
//! line, else `target-version` / `platform` under `[tool.gpulint]` in the nearest `pyproject.toml`,
//! else that file's `requires-python` (its oldest version), else py310 on Linux.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};
use gpulint_analyzer::program::normalize;
use gpulint_analyzer::semantic::Settings;
use gpulint_analyzer::target::{default_start_method, Platform, PythonVersion};

/// What the command line fixed.
#[derive(Clone, Copy, Debug, Default)]
pub struct Overrides {
    pub target_version: Option<PythonVersion>,
    pub platform: Option<Platform>,
}

/// What one `pyproject.toml` says.
#[derive(Clone, Copy, Debug, Default)]
struct Declared {
    target_version: Option<PythonVersion>,
    platform: Option<Platform>,
}

/// Finds and reads each folder's nearest `pyproject.toml` once.
pub struct Resolver {
    overrides: Overrides,
    by_dir: HashMap<PathBuf, Declared>,
}

impl Resolver {
    pub fn new(overrides: Overrides) -> Self {
        Resolver {
            overrides,
            by_dir: HashMap::new(),
        }
    }

    pub fn settings_for(&mut self, file: &Path) -> anyhow::Result<Settings> {
        let declared = match normalize(file).parent() {
            Some(dir) => self.declared(dir)?,
            None => Declared::default(),
        };
        let version = self
            .overrides
            .target_version
            .or(declared.target_version)
            .unwrap_or(PythonVersion::DEFAULT);
        let platform = self
            .overrides
            .platform
            .or(declared.platform)
            .unwrap_or(Platform::Linux);
        Ok(Settings {
            default_start_method: default_start_method(version, platform),
        })
    }

    fn declared(&mut self, dir: &Path) -> anyhow::Result<Declared> {
        if let Some(d) = self.by_dir.get(dir) {
            return Ok(*d);
        }
        let pyproject = dir.join("pyproject.toml");
        let declared = if pyproject.is_file() {
            read_pyproject(&pyproject)?
        } else {
            match dir.parent() {
                Some(parent) => self.declared(parent)?,
                None => Declared::default(),
            }
        };
        self.by_dir.insert(dir.to_path_buf(), declared);
        Ok(declared)
    }
}

fn read_pyproject(path: &Path) -> anyhow::Result<Declared> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        anyhow!("{}: invalid TOML: {}", path.display(), e.message())
    })?;
    let tool = table.get("tool").and_then(|t| t.get("gpulint"));
    let key = |name: &str| tool.and_then(|t| t.get(name));
    let bad = |name: &str, expected: &str| {
        anyhow!(
            "{}: `[tool.gpulint] {name}` must be {expected}",
            path.display()
        )
    };
    let target_version = match key("target-version") {
        Some(v) => Some(
            v.as_str()
                .and_then(PythonVersion::parse)
                .ok_or_else(|| bad("target-version", "a version such as \"py312\""))?,
        ),
        None => table
            .get("project")
            .and_then(|p| p.get("requires-python"))
            .and_then(|r| r.as_str())
            .and_then(PythonVersion::from_requires_python),
    };
    let platform = match key("platform") {
        Some(v) => Some(
            v.as_str()
                .and_then(Platform::parse)
                .ok_or_else(|| bad("platform", "\"linux\", \"macos\" or \"windows\""))?,
        ),
        None => None,
    };
    Ok(Declared {
        target_version,
        platform,
    })
}
