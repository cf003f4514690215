//! Configuration: `[tool.gpulint]` in `pyproject.toml`, or the top level of `gpulint.toml` /
//! `.gpulint.toml`. As in ruff, the nearest configuration file above a checked file applies to it
//! (`.gpulint.toml`, then `gpulint.toml`, then a `pyproject.toml` with a `[tool.gpulint]` table);
//! `--config PATH` applies one file to every checked file; `--isolated` reads none; `--config "KEY =
//! VALUE"` sets one key over whichever configuration applies. An unknown key or a bad value is an
//! error that shows the file (or the `--config` setting), line and key.

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use globset::{Glob, GlobMatcher, GlobSet, GlobSetBuilder};
use gpulint_python::libraries::processes::StartMethod;
use gpulint_python::program::normalize;
use gpulint_python::requirements::Requirements;
use gpulint_python::semantic::Settings;
use gpulint_python::target::{default_start_method, Platform, PythonVersion};
use gpulint_rules::Severity;
use serde::Deserialize;
use toml::Spanned;

use crate::selection::{self, selects, Selection};

mod editable;
mod environment;
mod keys;

pub use environment::{find as find_environment, PythonChoice};

use keys::build;

/// Keys under `[tool.gpulint]` (or at the top of `gpulint.toml`).
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawConfig {
    select: Option<Vec<Spanned<String>>>,
    extend_select: Option<Vec<Spanned<String>>>,
    ignore: Option<Vec<Spanned<String>>>,
    per_file_ignores: Option<BTreeMap<String, Spanned<Vec<Spanned<String>>>>>,
    exclude: Option<Vec<Spanned<String>>>,
    extend_exclude: Option<Vec<Spanned<String>>>,
    target_version: Option<Spanned<String>>,
    platform: Option<Spanned<String>>,
    severity: Option<BTreeMap<String, Spanned<String>>>,
    fail_on: Option<Spanned<String>>,
    baseline: Option<Spanned<String>>,
    python: Option<Spanned<toml::Value>>,
}

#[derive(Deserialize)]
struct PyProject {
    tool: Option<Tools>,
    project: Option<Project>,
}

#[derive(Deserialize)]
struct Tools {
    gpulint: Option<RawConfig>,
}

#[derive(Deserialize)]
struct Project {
    #[serde(rename = "requires-python")]
    requires_python: Option<String>,
    dependencies: Option<Vec<String>>,
}

/// A configuration error: the file, its text, where, and what is wrong.
#[derive(Debug)]
pub struct ConfigError {
    pub path: PathBuf,
    pub text: String,
    pub span: Range<usize>,
    pub message: String,
}

impl ConfigError {
    /// Renders it with ariadne: the file, the line, the key, the message.
    pub fn render(&self) -> String {
        use ariadne::{Config, IndexType, Label, Report, ReportKind, Source};
        let name = self.path.display().to_string();
        let span = self.span.start.min(self.text.len())..self.span.end.min(self.text.len());
        let mut buffer = Vec::new();
        let report = Report::build(ReportKind::Error, (name.clone(), span.clone()))
            .with_config(
                Config::default()
                    .with_color(false)
                    .with_index_type(IndexType::Byte),
            )
            .with_message(format!("invalid configuration: {}", self.message))
            .with_label(Label::new((name.clone(), span)).with_message(&self.message))
            .finish();
        if report
            .write((name, Source::from(self.text.as_str())), &mut buffer)
            .is_err()
        {
            return format!("{}: {}", self.path.display(), self.message);
        }
        String::from_utf8_lossy(&buffer).into_owned()
    }
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.render())
    }
}

impl std::error::Error for ConfigError {}

/// A pattern of `exclude` or `per-file-ignores`: a bare name matches any path component (`tests`,
/// `*_pb2.py`); a pattern with a `/` matches the path relative to the configuration's folder.
#[derive(Debug, Clone)]
struct Pattern {
    matcher: GlobMatcher,
    anchored: bool,
}

impl Pattern {
    fn matches(&self, root: &Path, path: &Path) -> bool {
        if self.anchored {
            path.strip_prefix(root)
                .is_ok_and(|rel| self.matcher.is_match(rel))
        } else {
            let rel = path.strip_prefix(root).unwrap_or(path);
            rel.components()
                .any(|c| self.matcher.is_match(Path::new(c.as_os_str())))
        }
    }
}

/// The settings one configuration file (or none) gives the files under it, with the command
/// line's `--config KEY = VALUE` settings laid over them ([`Config::overlay`]).
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// The file it was read from.
    source: Option<PathBuf>,
    /// `select`, `extend-select` and `ignore`: the file's layer, then each `--config` setting's.
    selection: Vec<Selection>,
    /// `None`: the key is not given (a setting that gives it replaces the file's table).
    per_file_ignores: Option<FileIgnores>,
    /// `exclude`, which a later setting (or `--exclude`) replaces.
    exclude: Option<Excludes>,
    /// `extend-exclude`: each setting's patterns are added to those before.
    extend_exclude: Vec<Excludes>,
    target_version: Option<PythonVersion>,
    platform: Option<Platform>,
    severity: HashMap<String, Severity>,
    fail_on: Option<Severity>,
    /// A baseline file (relative to `root` in the file).
    baseline: Option<PathBuf>,
    /// `python`: the environment whose installed packages imports are followed into, or none.
    python: Option<PythonChoice>,
}

impl Pattern {
    fn new(glob: &str) -> Result<Pattern, String> {
        let compiled = Glob::new(glob).map_err(|e| format!("`{glob}` is not a glob: {e}"))?;
        Ok(Pattern {
            matcher: compiled.compile_matcher(),
            anchored: glob.contains('/'),
        })
    }
}

/// The most `exclude` patterns one configuration may give: a glob that is not a plain name costs
/// its part of a compiled regular expression, and nobody lists more than a few hundred by hand.
const MAX_PATTERNS: usize = 10_000;

/// The patterns of one `exclude` or `extend-exclude` list (a file's key, or `--exclude`), each kind
/// compiled into one set: a million patterns cost megabytes, not the gigabytes a matcher each took.
#[derive(Clone, Debug, Default)]
pub struct Excludes {
    /// The folder the patterns are relative to: the configuration file's, or the working
    /// directory for the command line's.
    root: PathBuf,
    /// Patterns with a `/`: matched against the path relative to `root`.
    anchored: Option<GlobSet>,
    /// Bare names: matched against each component.
    names: Option<GlobSet>,
}

impl Excludes {
    /// The command line's `--exclude` or `--extend-exclude` patterns (`flag` names it in errors),
    /// relative to the working directory.
    pub fn parse(flag: &str, values: &[String]) -> Result<Excludes, String> {
        if values.len() > MAX_PATTERNS {
            return Err(format!(
                "{flag}: {} patterns: at most {MAX_PATTERNS} are read",
                values.len()
            ));
        }
        let mut globs = Vec::with_capacity(values.len());
        for value in values.iter().map(|v| v.trim()) {
            let glob =
                Glob::new(value).map_err(|e| format!("{flag}: `{value}` is not a glob: {e}"))?;
            globs.push(glob);
        }
        Excludes::build(crate::paths::working_dir(), globs)
            .map_err(|e| format!("{flag}: the patterns cannot be compiled: {e}"))
    }

    /// Compiles the globs, each already checked by [`Glob::new`].
    fn build(root: PathBuf, globs: Vec<Glob>) -> Result<Excludes, globset::Error> {
        let (anchored, names): (Vec<Glob>, Vec<Glob>) =
            globs.into_iter().partition(|g| g.glob().contains('/'));
        let set = |globs: Vec<Glob>| -> Result<Option<GlobSet>, globset::Error> {
            if globs.is_empty() {
                return Ok(None);
            }
            let mut builder = GlobSetBuilder::new();
            for glob in globs {
                builder.add(glob);
            }
            builder.build().map(Some)
        };
        Ok(Excludes {
            root,
            anchored: set(anchored)?,
            names: set(names)?,
        })
    }

    fn matches(&self, path: &Path) -> bool {
        let rel = path.strip_prefix(&self.root);
        if let (Some(set), Ok(rel)) = (&self.anchored, &rel) {
            if set.is_match(rel) {
                return true;
            }
        }
        let Some(names) = &self.names else {
            return false;
        };
        rel.unwrap_or(path)
            .components()
            .any(|c| names.is_match(Path::new(c.as_os_str())))
    }
}

/// A `per-file-ignores` table: the patterns (relative to `root`: the configuration file's folder,
/// or the working directory for the command line's) and the rules each ignores.
#[derive(Clone, Debug)]
pub struct FileIgnores {
    root: PathBuf,
    patterns: Vec<(Pattern, Vec<String>)>,
}

impl FileIgnores {
    /// Compiles `GLOB:CODES` values (see [`selection::parse_file_ignores`]).
    pub fn parse(values: &[String]) -> Result<FileIgnores, String> {
        let mut patterns = Vec::new();
        for (glob, codes) in selection::parse_file_ignores(values)? {
            patterns.push((Pattern::new(&glob)?, codes));
        }
        Ok(FileIgnores {
            root: crate::paths::working_dir(),
            patterns,
        })
    }

    fn ignores(&self, path: &Path, code: &str) -> bool {
        self.patterns.iter().any(|(pattern, codes)| {
            pattern.matches(&self.root, path) && codes.iter().any(|x| selects(x, code))
        })
    }
}

impl Config {
    /// Whether findings of `code` in `path` are reported: this file's selection (and the
    /// `--config` settings'), then the command line's; its per-file ignores, or the command
    /// line's instead.
    pub fn reports(&self, path: &Path, code: &str, overrides: &Overrides) -> bool {
        let ignored = match (&overrides.per_file_ignores, &self.per_file_ignores) {
            (Some(table), _) | (None, Some(table)) => table.ignores(path, code),
            (None, None) => false,
        };
        let layers: Vec<&Selection> = self
            .selection
            .iter()
            .chain([&overrides.selection])
            .collect();
        selection::selected(&layers, code) && !ignored
    }

    pub fn severity(&self, code: &str, default: Severity) -> Severity {
        self.severity.get(code).copied().unwrap_or(default)
    }

    /// Whether `path` is excluded: by `exclude` (or `--exclude`, which replaces it), or by any
    /// `extend-exclude` (the file's, the `--config` settings', `--extend-exclude`).
    pub fn excludes(&self, path: &Path, overrides: &Overrides) -> bool {
        let base = match (&overrides.exclude, &self.exclude) {
            (Some(list), _) | (None, Some(list)) => list.matches(path),
            (None, None) => false,
        };
        base || self
            .extend_exclude
            .iter()
            .chain(&overrides.extend_exclude)
            .any(|list| list.matches(path))
    }

    /// This configuration with `over`'s keys laid over it (a `--config KEY = VALUE` setting): a
    /// key `over` gives replaces this one's, except that `extend-exclude` patterns add up,
    /// `severity` is replaced rule by rule, and `select`/`extend-select`/`ignore` are one more
    /// layer (as the command line's flags are).
    fn overlay(mut self, over: &Config) -> Config {
        self.selection.extend(over.selection.iter().cloned());
        if over.per_file_ignores.is_some() {
            self.per_file_ignores.clone_from(&over.per_file_ignores);
        }
        if over.exclude.is_some() {
            self.exclude.clone_from(&over.exclude);
        }
        self.extend_exclude
            .extend(over.extend_exclude.iter().cloned());
        self.target_version = over.target_version.or(self.target_version);
        self.platform = over.platform.or(self.platform);
        self.severity
            .extend(over.severity.iter().map(|(code, s)| (code.clone(), *s)));
        self.fail_on = over.fail_on.or(self.fail_on);
        if over.baseline.is_some() {
            self.baseline.clone_from(&over.baseline);
        }
        if over.python.is_some() {
            self.python.clone_from(&over.python);
        }
        self
    }

    /// The file it was read from.
    pub fn source(&self) -> Option<&Path> {
        self.source.as_deref()
    }
}

/// What the command line fixed.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    pub target_version: Option<PythonVersion>,
    pub platform: Option<Platform>,
    /// `--config PATH`.
    pub config: Option<PathBuf>,
    /// `--isolated`.
    pub isolated: bool,
    /// `--fail-on`.
    pub fail_on: Option<Severity>,
    /// `--select`, `--extend-select`, `--ignore`: a layer over each file's configuration.
    pub selection: Selection,
    /// `--per-file-ignores`: replaces the configuration's table.
    pub per_file_ignores: Option<FileIgnores>,
    /// `--exclude`: replaces the configuration's `exclude`.
    pub exclude: Option<Excludes>,
    /// `--extend-exclude`: added to the configuration's patterns.
    pub extend_exclude: Option<Excludes>,
    /// `--config KEY = VALUE` settings, in order, laid over every configuration (also under
    /// `--isolated`, as ruff does).
    pub settings: Option<Arc<Config>>,
    /// `--baseline`.
    pub baseline: Option<PathBuf>,
    /// `--python PATH` or `--no-python`.
    pub python: Option<PythonChoice>,
}

/// The settings that apply to one file.
#[derive(Debug)]
pub struct Resolved {
    pub config_file: Option<PathBuf>,
    pub version: PythonVersion,
    /// What set the version: a flag, a key, `requires-python`, or the default.
    pub version_from: &'static str,
    pub platform: Platform,
    pub start_method: StartMethod,
    pub fail_on: Severity,
    /// Whether `exclude`/`extend-exclude` match it.
    pub excluded: bool,
    pub baseline: Option<PathBuf>,
    /// The rules reported there, with their severity.
    pub rules: Vec<(&'static str, Severity)>,
}

/// Finds each folder's configuration (and `requires-python`) once.
pub struct Resolver {
    overrides: Overrides,
    fixed: Option<Arc<Config>>,
    by_dir: HashMap<PathBuf, Arc<Config>>,
    requires_python: HashMap<PathBuf, Option<PythonVersion>>,
    servers: crate::servers::Servers,
    launches: crate::launches::Launches,
    requirements: HashMap<PathBuf, Requirements>,
}

impl Resolver {
    pub fn new(overrides: Overrides) -> Result<Self, ConfigError> {
        let fixed = match (&overrides.config, overrides.isolated) {
            (_, true) => Some(Config::default()),
            (Some(path), false) => {
                let path = normalize(path);
                let text = read(&path)?;
                Some(parse_config(&path, &text)?.unwrap_or_default())
            }
            (None, false) => None,
        };
        let fixed = fixed.map(|config| with_settings(config, &overrides));
        Ok(Resolver {
            overrides,
            fixed,
            by_dir: HashMap::new(),
            requires_python: HashMap::new(),
            servers: Default::default(),
            launches: Default::default(),
            requirements: HashMap::new(),
        })
    }

    /// Whether a finding of `code` in `file` is reported.
    pub fn reports(&mut self, file: &Path, code: &str) -> Result<bool, ConfigError> {
        let config = self.config_for(file)?;
        Ok(config.reports(&normalize(file), code, &self.overrides))
    }

    /// The configuration that applies to `file`.
    pub fn config_for(&mut self, file: &Path) -> Result<Arc<Config>, ConfigError> {
        if let Some(fixed) = &self.fixed {
            return Ok(Arc::clone(fixed));
        }
        match normalize(file).parent() {
            Some(dir) => self.config_in(dir),
            None => Ok(Arc::default()),
        }
    }

    fn config_in(&mut self, dir: &Path) -> Result<Arc<Config>, ConfigError> {
        if let Some(c) = self.by_dir.get(dir) {
            return Ok(Arc::clone(c));
        }
        let mut found = None;
        for name in [".gpulint.toml", "gpulint.toml", "pyproject.toml"] {
            let path = dir.join(name);
            match std::fs::metadata(&path) {
                Ok(meta) if meta.is_file() => {}
                Ok(meta) => {
                    // Skipped, but said: otherwise the user's settings silently do not apply.
                    eprintln!(
                        "gpulint: {}: not a regular file ({}): its settings do not apply",
                        path.display(),
                        gpulint_core::fsio::kind_of(&meta)
                    );
                    continue;
                }
                Err(_) => continue,
            }
            let text = read(&path)?;
            if let Some(config) = parse_config(&path, &text)? {
                found = Some(with_settings(config, &self.overrides));
                break;
            }
        }
        let config = match found {
            Some(c) => c,
            None => match dir.parent() {
                Some(parent) => self.config_in(parent)?,
                None => with_settings(Config::default(), &self.overrides),
            },
        };
        self.by_dir.insert(dir.to_path_buf(), Arc::clone(&config));
        Ok(config)
    }

    /// Whether the settings that apply to `file` exclude it (see [`Config::excludes`]).
    pub fn excludes(&mut self, file: &Path) -> Result<bool, ConfigError> {
        let config = self.config_for(file)?;
        Ok(config.excludes(&normalize(file), &self.overrides))
    }

    /// The least severity of a finding in `file` that makes the run fail: the command line, else
    /// its configuration's `fail-on`, else warning.
    pub fn fail_on_for(&mut self, file: &Path) -> Result<Severity, ConfigError> {
        let config = self.config_for(file)?;
        Ok(self
            .overrides
            .fail_on
            .or(config.fail_on)
            .unwrap_or(Severity::Warning))
    }

    /// The baseline whose findings are not reported in `file`: `--baseline`, else its
    /// configuration's.
    pub fn baseline_for(&mut self, file: &Path) -> Result<Option<PathBuf>, ConfigError> {
        if let Some(path) = &self.overrides.baseline {
            return Ok(Some(normalize(path)));
        }
        Ok(self.config_for(file)?.baseline.clone())
    }

    /// The environment chosen for `file`'s run, and who chose it (for errors): `--python` or
    /// `--no-python`, else its configuration's `python`.
    pub fn python_for(
        &mut self,
        file: &Path,
    ) -> Result<Option<(PythonChoice, String)>, ConfigError> {
        if let Some(choice) = &self.overrides.python {
            return Ok(Some((choice.clone(), "--python".into())));
        }
        let config = self.config_for(file)?;
        let by = match config.source() {
            Some(path) => format!("{}: python", path.display()),
            None => "--config python".into(),
        };
        Ok(config.python.clone().map(|c| (c, by)))
    }

    /// The analysis settings for `file`: the command line, else its configuration, else the
    /// oldest version the nearest `pyproject.toml`'s `requires-python` admits, else py310 on Linux.
    pub fn settings_for(&mut self, file: &Path) -> Result<Settings, ConfigError> {
        let ((version, _), platform) = self.target_for(file)?;
        let file = normalize(file);
        Ok(Settings {
            default_start_method: default_start_method(version, platform),
            python: version,
            preloading_server: self.servers.preloads(&file),
            documented_launch: self.launches.nodes_for(&file),
            requirements: match file.parent() {
                Some(dir) => self.requirements_in(dir),
                None => Requirements::default(),
            },
        })
    }

    /// The Python version (and what set it) and the platform `file` runs on.
    fn target_for(
        &mut self,
        file: &Path,
    ) -> Result<((PythonVersion, &'static str), Platform), ConfigError> {
        let config = self.config_for(file)?;
        let requires = match (self.overrides.isolated, normalize(file).parent()) {
            (false, Some(dir)) => self.requires_python_in(dir),
            _ => None,
        };
        let set_inline = self
            .overrides
            .settings
            .as_ref()
            .and_then(|s| s.target_version);
        let version = [
            (self.overrides.target_version, "--target-version"),
            (set_inline, "--config"),
            (config.target_version, "target-version"),
            (requires, "requires-python"),
        ]
        .into_iter()
        .find_map(|(v, from)| v.map(|v| (v, from)))
        .unwrap_or((PythonVersion::DEFAULT, "the default"));
        let platform = self
            .overrides
            .platform
            .or(config.platform)
            .unwrap_or(Platform::Linux);
        Ok((version, platform))
    }

    /// Everything that applies to `file`, for `--show-settings`.
    pub fn resolved(&mut self, file: &Path) -> Result<Resolved, ConfigError> {
        let config = self.config_for(file)?;
        let ((version, version_from), platform) = self.target_for(file)?;
        let path = normalize(file);
        let rules = gpulint_rules::RULES
            .iter()
            .filter(|r| config.reports(&path, r.code, &self.overrides))
            .map(|r| (r.code, config.severity(r.code, r.severity)))
            .collect();
        Ok(Resolved {
            config_file: config.source.clone(),
            version,
            version_from,
            platform,
            start_method: default_start_method(version, platform),
            fail_on: self.fail_on_for(file)?,
            excluded: config.excludes(&path, &self.overrides),
            baseline: self.baseline_for(file)?,
            rules,
        })
    }

    /// The dependency versions of the project `dir` is in: the nearest `pyproject.toml`'s
    /// `dependencies`, with a `requirements.txt` next to it, or the nearest `requirements.txt` of
    /// a project that has no `pyproject.toml`. Like the deployment files, read under
    /// `--isolated` too: they say what the code runs with, not how gpulint is configured.
    fn requirements_in(&mut self, dir: &Path) -> Requirements {
        if let Some(r) = self.requirements.get(dir) {
            return r.clone();
        }
        let pyproject = dir.join("pyproject.toml");
        let found = if pyproject.is_file() || dir.join("requirements.txt").is_file() {
            let mut specs: Vec<String> =
                gpulint_core::fsio::read_text(&pyproject, gpulint_core::fsio::MAX_FILE_BYTES)
                    .ok()
                    .and_then(|text| toml::from_str::<PyProject>(&text).ok())
                    .and_then(|p| p.project?.dependencies)
                    .unwrap_or_default();
            if let Ok(text) = gpulint_core::fsio::read_text(
                &dir.join("requirements.txt"),
                gpulint_core::fsio::MAX_FILE_BYTES,
            ) {
                specs.extend(text.lines().map(str::to_string));
            }
            Requirements::parse(specs.iter().map(String::as_str))
        } else {
            match dir.parent() {
                Some(parent) => self.requirements_in(parent),
                None => Requirements::default(),
            }
        };
        self.requirements.insert(dir.to_path_buf(), found.clone());
        found
    }

    fn requires_python_in(&mut self, dir: &Path) -> Option<PythonVersion> {
        if let Some(v) = self.requires_python.get(dir) {
            return *v;
        }
        let pyproject = dir.join("pyproject.toml");
        let version = if pyproject.is_file() {
            gpulint_core::fsio::read_text(&pyproject, gpulint_core::fsio::MAX_FILE_BYTES)
                .ok()
                .and_then(|text| toml::from_str::<PyProject>(&text).ok())
                .and_then(|p| p.project?.requires_python)
                .and_then(|spec| PythonVersion::from_requires_python(&spec))
        } else {
            dir.parent()
                .and_then(|parent| self.requires_python_in(parent))
        };
        self.requires_python.insert(dir.to_path_buf(), version);
        version
    }
}

/// A configuration file's text: a regular file of at most [`fsio::MAX_FILE_BYTES`] (a FIFO or a
/// link to `/dev/zero` is refused, not read until memory runs out).
fn read(path: &Path) -> Result<String, ConfigError> {
    gpulint_core::fsio::read_text(path, gpulint_core::fsio::MAX_FILE_BYTES).map_err(|e| {
        ConfigError {
            path: path.to_path_buf(),
            text: String::new(),
            span: 0..0,
            message: format!("cannot read it: {e}"),
        }
    })
}

/// `config` with the `--config KEY = VALUE` settings laid over it.
fn with_settings(config: Config, overrides: &Overrides) -> Arc<Config> {
    Arc::new(match &overrides.settings {
        Some(settings) => config.overlay(settings),
        None => config,
    })
}

/// How a `--config` setting is named in its errors.
const SETTING: &str = "--config";

/// The `--config KEY = VALUE` settings (each a TOML document with keys of `gpulint.toml`), laid
/// over one another in order; paths and patterns in them are relative to the working directory.
/// `None` when there are none.
pub fn parse_settings(settings: &[String]) -> Result<Option<Config>, ConfigError> {
    let mut merged: Option<Config> = None;
    for text in settings {
        let raw = toml::from_str::<RawConfig>(text).map_err(|e| ConfigError {
            path: PathBuf::from(SETTING),
            text: text.clone(),
            span: e.span().unwrap_or(0..0),
            message: e.message().to_string(),
        })?;
        let config = build(
            Path::new(SETTING),
            text,
            None,
            crate::paths::working_dir(),
            raw,
        )?;
        merged = Some(match merged {
            Some(before) => before.overlay(&config),
            None => config,
        });
    }
    Ok(merged)
}

/// Whether `text` is a TOML document that sets at least one key: a `--config` value that is no
/// file must be one. The error says why not.
pub fn is_setting(text: &str) -> Result<(), String> {
    match toml::from_str::<toml::Table>(text) {
        Ok(table) if table.is_empty() => Err("it sets no key".into()),
        Ok(_) => Ok(()),
        Err(e) => Err(e.message().to_string()),
    }
}

/// The configuration in `path`; `None` for a `pyproject.toml` without `[tool.gpulint]`.
fn parse_config(path: &Path, text: &str) -> Result<Option<Config>, ConfigError> {
    let toml_error = |e: toml::de::Error| ConfigError {
        path: path.to_path_buf(),
        text: text.to_string(),
        span: e.span().unwrap_or(0..0),
        message: e.message().to_string(),
    };
    let is_pyproject = path.file_name().is_some_and(|n| n == "pyproject.toml");
    let raw = if is_pyproject {
        let project: PyProject = toml::from_str(text).map_err(toml_error)?;
        match project.tool.and_then(|t| t.gpulint) {
            Some(raw) => raw,
            None => return Ok(None),
        }
    } else {
        toml::from_str::<RawConfig>(text).map_err(toml_error)?
    };
    let root = path.parent().map(Path::to_path_buf).unwrap_or_default();
    build(path, text, Some(path.to_path_buf()), root, raw).map(Some)
}

fn parse_severity(text: &str) -> Option<Severity> {
    match text {
        "error" => Some(Severity::Error),
        "warning" => Some(Severity::Warning),
        "info" => Some(Severity::Info),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(text: &str) -> Result<Config, ConfigError> {
        parse_config(Path::new("/p/gpulint.toml"), text)
            .map(|c| c.expect("a gpulint.toml is a config"))
    }

    #[test]
    fn select_ignore_and_per_file_ignores() {
        let c = config(
            "select = [\"GPU00\"]\nignore = [\"GPU002\"]\n[per-file-ignores]\n\"tests/*.py\" = [\"GPU001\"]\n",
        )
        .unwrap();
        let main = Path::new("/p/src/train.py");
        let test = Path::new("/p/tests/test_train.py");
        let cli = Overrides::default();
        assert!(c.reports(main, "GPU001", &cli));
        assert!(!c.reports(main, "GPU002", &cli));
        assert!(!c.reports(test, "GPU001", &cli));
        assert!(c.reports(test, "GPU003", &cli));
    }

    #[test]
    fn exclude_matches_names_anywhere_and_anchored_paths() {
        let c = config("exclude = [\"build\", \"gen/*_pb2.py\"]\n").unwrap();
        let cli = Overrides::default();
        assert!(c.excludes(Path::new("/p/a/build/x.py"), &cli));
        assert!(c.excludes(Path::new("/p/gen/api_pb2.py"), &cli));
        assert!(!c.excludes(Path::new("/p/other/gen/api_pb2.py"), &cli));
    }

    #[test]
    fn errors_point_at_the_key_or_value() {
        let text = "select = [\"GPU001\"]\ncolour = true\n";
        let err = config(text).unwrap_err();
        assert!(
            err.message.contains("unknown field `colour`"),
            "{}",
            err.message
        );
        assert_eq!(&text[err.span.clone()], "colour");

        let text = "[severity]\nGPU001 = \"fatal\"\n";
        let err = config(text).unwrap_err();
        assert_eq!(&text[err.span.clone()], "\"fatal\"");
        assert!(err.render().contains("gpulint.toml:2"), "{}", err.render());

        let err = config("select = [\"E501\"]\n").unwrap_err();
        assert!(err.message.contains("selects no rule"), "{}", err.message);
    }
}
