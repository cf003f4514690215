//! Command-line arguments.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use gpulint_python::target::{Platform, PythonVersion};
use gpulint_rules::Severity;

/// Finds GPU multiprocessing bugs in Python before they crash or hang a job.
#[derive(Debug, Parser)]
#[command(name = "gpulint", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check files and directories (default: the current directory).
    Check(Box<CheckArgs>),
    /// Explain a rule: why it is a bug, when it is not, bad and good code, the fix.
    Rule {
        /// A rule code (GPU001) or name (fork-after-cuda-init).
        code: String,
    },
    /// List every rule.
    Rules {
        /// `text`: a table; `markdown`: the full rule reference (what docs/rules.md holds); `json`.
        #[arg(long, value_enum, default_value_t = RulesFormat::Text)]
        output_format: RulesFormat,
    },
    /// Run a language server on standard input and output, for editors: findings as you type,
    /// fixes and `# noqa` comments as quick fixes.
    Server,
    /// Reproduce each hazard on this host's GPUs and time the fixes (needs an NVIDIA driver;
    /// exits 3 without one).
    Probe(ProbeArgs),
    /// The probe's own worker processes.
    #[command(hide = true, name = "probe-worker")]
    ProbeWorker {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Print the semantic facts found in one file (for debugging gpulint itself).
    #[command(hide = true)]
    Facts { path: PathBuf },
}

#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// Print one JSON object instead of the report.
    #[arg(long)]
    pub json: bool,
    /// Read `gpulint check --output-format json` output and reproduce only the rules found there,
    /// saying for each finding whether this host confirms it.
    #[arg(long, value_name = "FILE")]
    pub findings: Option<PathBuf>,
    /// Run only this hazard (a rule code or name); repeatable.
    #[arg(long, value_name = "RULE")]
    pub hazard: Vec<String>,
    /// Workers per reproduction (NCCL ranks: one per GPU up to this number, at least 2).
    /// Default: the GPU count, at least 2, at most 8.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=64))]
    pub workers: Option<u16>,
    /// The longest any one step may take, in seconds (at least 0.1); a hung child is killed
    /// then, and a step that runs out of time is reported as inconclusive.
    #[arg(long, value_name = "SECS", default_value_t = 60.0)]
    pub timeout: f64,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Files or directories to check.
    #[arg(default_value = ".")]
    pub paths: Vec<PathBuf>,
    /// How to print findings.
    #[arg(long, value_enum, default_value_t = OutputFormat::Full)]
    pub output_format: OutputFormat,
    /// When to colour the `full` output.
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    pub color: Color,
    /// The Python version the code runs on (py38 ... py314): from 3.14, Linux's default start
    /// method is forkserver. Default: `[tool.gpulint] target-version`, else the oldest version
    /// `requires-python` admits, else py310.
    #[arg(long, value_parser = parse_version)]
    pub target_version: Option<PythonVersion>,
    /// The platform the code runs on: macOS and Windows start children by spawn. Default:
    /// `[tool.gpulint] platform`, else linux.
    #[arg(long, value_enum)]
    pub platform: Option<PlatformArg>,
    /// Read the file to check from standard input, reporting it under this path (for editors and
    /// hooks); the path's folder decides the configuration and how its imports resolve.
    #[arg(long, value_name = "PATH")]
    pub stdin_filename: Option<PathBuf>,
    /// A configuration file to use for every checked file (instead of the nearest one), or a TOML
    /// `KEY = VALUE` setting of `gpulint.toml` (`"fail-on = 'error'"`, `"severity.GPU015 =
    /// 'error'"`) laid over whichever configuration applies. Repeatable: one file at most, any
    /// number of settings, the later winning.
    #[arg(long, value_name = "PATH | KEY=VALUE")]
    pub config: Vec<String>,
    /// Read no configuration file (`--config KEY = VALUE` settings still apply).
    #[arg(long)]
    pub isolated: bool,
    /// Write the report to this file instead of standard output.
    #[arg(long, short = 'o')]
    pub output_file: Option<PathBuf>,
    /// Exit 0 even when there are findings (still 2 on errors).
    #[arg(long)]
    pub exit_zero: bool,
    /// The least severity that makes the run exit 1. Default: `[tool.gpulint] fail-on`, else
    /// warning (info findings are shown but do not fail the run).
    #[arg(long, value_enum)]
    pub fail_on: Option<SeverityArg>,
    /// Print the findings only: no summary line.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Name on standard error each file and function whose analysis a budget cut short.
    #[arg(long, short = 'v')]
    pub verbose: bool,
    /// Apply safe fixes, check again, and report what is left.
    #[arg(long)]
    pub fix: bool,
    /// Also apply (with --fix) or show (with --diff) unsafe fixes.
    #[arg(long)]
    pub unsafe_fixes: bool,
    /// Print the fixes as a unified diff instead of applying them; exit 1 if there are any.
    #[arg(long, conflicts_with = "fix")]
    pub diff: bool,
    /// Report gpulint codes in suppression comments that suppress nothing (GPU900).
    #[arg(long)]
    pub report_unused_noqa: bool,
    /// Print how many findings each rule has, instead of the findings.
    #[arg(long)]
    pub statistics: bool,
    /// Report only these rules (codes or prefixes such as GPU00, or ALL), replacing the
    /// configuration's selection.
    #[arg(long, value_delimiter = ',', value_name = "RULES", value_parser = parse_selector)]
    pub select: Option<Vec<String>>,
    /// Report these rules too, on top of the configuration's selection.
    #[arg(long, value_delimiter = ',', value_name = "RULES", value_parser = parse_selector)]
    pub extend_select: Vec<String>,
    /// Do not report these rules (codes or prefixes).
    #[arg(long, value_delimiter = ',', value_name = "RULES", value_parser = parse_selector)]
    pub ignore: Vec<String>,
    /// `GLOB:CODES` (`tests/*.py:GPU001,GPU002`; repeatable): rules not reported in matching
    /// files, replacing the configuration's `per-file-ignores`. Patterns are relative to the
    /// working directory.
    #[arg(long, value_name = "GLOB:CODES")]
    pub per_file_ignores: Vec<String>,
    /// Files and folders not to check (globs; repeatable, or comma-separated), replacing the
    /// configuration's `exclude`. A bare name (`build`) matches anywhere; a pattern with a `/` is
    /// relative to the working directory.
    #[arg(long, value_delimiter = ',', value_name = "PATTERN")]
    pub exclude: Option<Vec<String>>,
    /// Files and folders not to check, on top of the configuration's `exclude` and
    /// `extend-exclude` (globs; repeatable, or comma-separated).
    #[arg(long, value_delimiter = ',', value_name = "PATTERN")]
    pub extend_exclude: Vec<String>,
    /// Apply `exclude` and `extend-exclude` to files named on the command line too (pre-commit
    /// names every staged file).
    #[arg(long)]
    pub force_exclude: bool,
    /// Print the settings the first path is checked with (a folder: a file directly in it), and
    /// exit.
    #[arg(long, conflicts_with = "show_files")]
    pub show_settings: bool,
    /// Print the files that would be checked, and exit.
    #[arg(long)]
    pub show_files: bool,
    /// Add `# noqa: CODE` to each line where a finding starts (merged into an existing noqa
    /// comment), and exit 0.
    #[arg(long, conflicts_with_all = ["fix", "diff", "write_baseline"])]
    pub add_noqa: bool,
    /// Record today's findings in this file (JSON, by fingerprint), and exit 0.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["fix", "diff", "baseline"])]
    pub write_baseline: Option<PathBuf>,
    /// Report only the findings this baseline does not record (default: `[tool.gpulint]
    /// baseline`).
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// The project's Python environment (an interpreter, or a virtual environment's folder):
    /// imports of installed packages that no library row covers are followed into their code.
    /// Default: `[tool.gpulint] python`, else `VIRTUAL_ENV`, else `.venv` or `venv` in the
    /// project's root.
    #[arg(long, value_name = "PATH", conflicts_with = "no_python")]
    pub python: Option<PathBuf>,
    /// Read no installed package: calls into third-party packages are decided by library rows
    /// alone.
    #[arg(long)]
    pub no_python: bool,
    /// Neither read nor write the cache: analyse every file.
    #[arg(long)]
    pub no_cache: bool,
    /// Keep the cache in this folder (default: `GPULINT_CACHE_DIR`, else `.gpulint_cache` in the
    /// project's root).
    #[arg(long, value_name = "PATH")]
    pub cache_dir: Option<PathBuf>,
}

fn parse_selector(text: &str) -> Result<String, String> {
    let text = text.trim();
    if crate::selection::known(text) {
        Ok(text.to_string())
    } else {
        Err(format!(
            "`{text}` selects no rule (use ALL, a code such as GPU001, or a prefix)"
        ))
    }
}

fn parse_version(text: &str) -> Result<PythonVersion, String> {
    PythonVersion::parse(text)
        .ok_or_else(|| format!("`{text}` is not a Python 3 version such as py312"))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SeverityArg {
    Error,
    Warning,
    Info,
}

impl From<SeverityArg> for Severity {
    fn from(s: SeverityArg) -> Severity {
        match s {
            SeverityArg::Error => Severity::Error,
            SeverityArg::Warning => Severity::Warning,
            SeverityArg::Info => Severity::Info,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PlatformArg {
    Linux,
    Macos,
    Windows,
}

impl From<PlatformArg> for Platform {
    fn from(p: PlatformArg) -> Platform {
        match p {
            PlatformArg::Linux => Platform::Linux,
            PlatformArg::Macos => Platform::Macos,
            PlatformArg::Windows => Platform::Windows,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// Source excerpts with the related locations and a fix.
    Full,
    /// One line per finding: `path:line:col: CODE message`.
    Concise,
    /// A JSON array shaped like ruff's `--output-format json`.
    Json,
    /// The same objects, one per line.
    JsonLines,
    /// GitHub Actions workflow commands: annotations on the pull request.
    Github,
    /// GitLab Code Quality JSON, with stable fingerprints.
    Gitlab,
    /// SARIF 2.1.0, for GitHub code scanning.
    Sarif,
    /// JUnit XML: a test suite per file, a failing test case per finding.
    Junit,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RulesFormat {
    Text,
    Markdown,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Color {
    Auto,
    Always,
    Never,
}
