//! A [`Config`] from the keys a configuration file (or a `--config` setting) gives: each value
//! checked in the order the keys are listed in [`RawConfig`], an error pointing at the key or value
//! in the text.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use globset::Glob;
use gpulint_python::program::normalize;
use gpulint_python::target::{Platform, PythonVersion};
use gpulint_rules::Severity;
use toml::Spanned;

use super::{Config, ConfigError, Excludes, FileIgnores, Pattern, RawConfig, MAX_PATTERNS};
use crate::selection::{self, Selection};

/// The settings `raw` gives, read from `text` (errors point into it, named `path`); patterns and
/// the baseline are relative to `root`.
pub(super) fn build(
    path: &Path,
    text: &str,
    source: Option<PathBuf>,
    root: PathBuf,
    raw: RawConfig,
) -> Result<Config, ConfigError> {
    let keys = Keys {
        path,
        text,
        root: &root,
    };
    let mut config = Config {
        source,
        selection: vec![Selection {
            select: match raw.select {
                Some(list) => Some(keys.selectors(Some(list))?),
                None => None,
            },
            extend_select: keys.selectors(raw.extend_select)?,
            ignore: keys.selectors(raw.ignore)?,
        }],
        ..Config::default()
    };
    if let Some(table) = raw.per_file_ignores {
        config.per_file_ignores = Some(keys.per_file_ignores(table)?);
    }
    keys.count_patterns(&raw.exclude, &raw.extend_exclude)?;
    if let Some(list) = raw.exclude {
        config.exclude = Some(keys.excludes(list)?);
    }
    if let Some(list) = raw.extend_exclude {
        config.extend_exclude.push(keys.excludes(list)?);
    }
    if let Some(v) = raw.target_version {
        config.target_version = Some(keys.target_version(&v)?);
    }
    if let Some(p) = raw.platform {
        config.platform = Some(keys.platform(&p)?);
    }
    for (code, level) in raw.severity.unwrap_or_default() {
        let (code, severity) = keys.rule_severity(&code, &level)?;
        config.severity.insert(code, severity);
    }
    config.baseline = raw.baseline.map(|b| normalize(&root.join(b.into_inner())));
    if let Some(value) = raw.python {
        config.python = Some(keys.python(&value)?);
    }
    if let Some(level) = raw.fail_on {
        let named = format!("fail-on `{}`", level.get_ref());
        config.fail_on = Some(keys.severity_of(&level, named)?);
    }
    Ok(config)
}

/// Where the keys come from: errors name `path` and point into `text`; patterns are relative to
/// `root`.
struct Keys<'a> {
    path: &'a Path,
    text: &'a str,
    root: &'a Path,
}

impl Keys<'_> {
    /// `python`: a path (relative to the configuration's folder), or `false` for none.
    fn python(&self, value: &Spanned<toml::Value>) -> Result<super::PythonChoice, ConfigError> {
        match value.get_ref() {
            toml::Value::Boolean(false) => Ok(super::PythonChoice::Off),
            toml::Value::String(path) if !path.trim().is_empty() => Ok(super::PythonChoice::Path(
                normalize(&self.root.join(path.trim())),
            )),
            _ => Err(self.error(
                value.span(),
                "python is an interpreter's or an environment's path, or false".into(),
            )),
        }
    }

    fn error(&self, span: Range<usize>, message: String) -> ConfigError {
        ConfigError {
            path: self.path.to_path_buf(),
            text: self.text.to_string(),
            span,
            message,
        }
    }

    /// A severity's value; `named`: the key and value as the message quotes them.
    fn severity_of(&self, level: &Spanned<String>, named: String) -> Result<Severity, ConfigError> {
        super::parse_severity(level.get_ref()).ok_or_else(|| {
            self.error(
                level.span(),
                format!("{named} is not \"error\", \"warning\" or \"info\""),
            )
        })
    }

    /// Rule selectors (`select`, `ignore`, a `per-file-ignores` entry), each naming some rule.
    fn selectors(&self, list: Option<Vec<Spanned<String>>>) -> Result<Vec<String>, ConfigError> {
        let mut out = Vec::new();
        for s in list.unwrap_or_default() {
            if !selection::known(s.get_ref()) {
                return Err(self.error(
                    s.span(),
                    format!(
                        "`{}` selects no rule (use `ALL`, a code such as GPU001, or a prefix)",
                        s.get_ref()
                    ),
                ));
            }
            out.push(s.into_inner());
        }
        Ok(out)
    }

    /// `per-file-ignores`: each pattern and the rules it ignores (errors point at the rules' list,
    /// where the table keeps a span).
    fn per_file_ignores(
        &self,
        table: BTreeMap<String, Spanned<Vec<Spanned<String>>>>,
    ) -> Result<FileIgnores, ConfigError> {
        let mut patterns = Vec::with_capacity(table.len());
        for (glob, codes) in table {
            let span = codes.span();
            let spanned_glob = Spanned::new(span.clone(), glob);
            let codes = self.selectors(Some(codes.into_inner()))?;
            let pattern = Pattern::new(spanned_glob.get_ref())
                .map_err(|message| self.error(spanned_glob.span(), message))?;
            patterns.push((pattern, codes));
        }
        Ok(FileIgnores {
            root: self.root.to_path_buf(),
            patterns,
        })
    }

    /// At most [`MAX_PATTERNS`] in `exclude` and `extend-exclude` together, counted before any is
    /// compiled.
    fn count_patterns(
        &self,
        exclude: &Option<Vec<Spanned<String>>>,
        extend_exclude: &Option<Vec<Spanned<String>>>,
    ) -> Result<(), ConfigError> {
        let count = exclude
            .iter()
            .chain(extend_exclude)
            .map(Vec::len)
            .sum::<usize>();
        if count > MAX_PATTERNS {
            let first = exclude.iter().chain(extend_exclude).flatten().next();
            return Err(self.error(
                first.map_or(0..0, |s| s.span()),
                format!(
                    "{count} exclude patterns: at most {MAX_PATTERNS} are read (name folders, or use wider globs)"
                ),
            ));
        }
        Ok(())
    }

    /// An `exclude` or `extend-exclude` list, compiled.
    fn excludes(&self, list: Vec<Spanned<String>>) -> Result<Excludes, ConfigError> {
        let mut globs = Vec::with_capacity(list.len());
        for s in &list {
            globs.push(Glob::new(s.get_ref()).map_err(|e| {
                self.error(s.span(), format!("`{}` is not a glob: {e}", s.get_ref()))
            })?);
        }
        Excludes::build(self.root.to_path_buf(), globs).map_err(|e| {
            let span = list.first().map_or(0..0, |s| s.span());
            self.error(
                span,
                format!("the exclude patterns cannot be compiled: {e}"),
            )
        })
    }

    fn target_version(&self, v: &Spanned<String>) -> Result<PythonVersion, ConfigError> {
        PythonVersion::parse(v.get_ref()).ok_or_else(|| {
            self.error(
                v.span(),
                format!(
                    "target-version `{}` is not a version such as \"py312\"",
                    v.get_ref()
                ),
            )
        })
    }

    fn platform(&self, p: &Spanned<String>) -> Result<Platform, ConfigError> {
        Platform::parse(p.get_ref()).ok_or_else(|| {
            self.error(
                p.span(),
                format!(
                    "platform `{}` is not \"linux\", \"macos\" or \"windows\"",
                    p.get_ref()
                ),
            )
        })
    }

    /// A `[severity]` entry: the rule's code as the rules spell it, and its severity.
    fn rule_severity(
        &self,
        code: &str,
        level: &Spanned<String>,
    ) -> Result<(String, Severity), ConfigError> {
        let Some(rule) = gpulint_rules::rule(code) else {
            return Err(self.error(level.span(), format!("severity for unknown rule `{code}`")));
        };
        let named = format!("severity `{}` for {code}", level.get_ref());
        Ok((rule.code.to_string(), self.severity_of(level, named)?))
    }
}
