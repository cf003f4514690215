//! `gpulint check`: read the input, check it, then report, fix, add noqa comments or write a
//! baseline.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::cli::{CheckArgs, Color};
use crate::{add_noqa, baseline, cache, check, config, discover, fixes, output, selection, show};

/// A file read from standard input: the path it is reported under, and its bytes.
type Stdin = Option<(PathBuf, Vec<u8>)>;

pub fn check(args: CheckArgs, out: &mut impl Write) -> anyhow::Result<ExitCode> {
    let stdin = read_stdin(&args)?;
    let overrides = overrides(&args)?;
    let named: Vec<PathBuf> = args.paths.iter().filter(|p| p.is_file()).cloned().collect();
    if args.show_settings {
        let path = match &stdin {
            Some((path, _)) => path,
            None => &args.paths[0],
        };
        show::settings(out, path, &mut config::Resolver::new(overrides)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    // A buffer (standard input) is not kept; `--verbose` reports the cuts of every analysis, so it
    // analyses every file.
    let cache_folder = match args.no_cache || args.verbose || stdin.is_some() {
        true => None,
        false => Some(cache_folder(&args, &overrides)?),
    };
    let cache_key = cache_key(&args);
    // Walks again each time: a fix round re-reads the files it wrote.
    let request = |stdin: Stdin| check::Request {
        found: match stdin {
            Some(_) => Vec::new(),
            None => discover::discover(&args.paths),
        },
        stdin,
        held: Vec::new(),
        named: named.clone(),
        force_exclude: args.force_exclude,
        use_baseline: args.write_baseline.is_none(),
        report_unused_noqa: args.report_unused_noqa,
        verbose: args.verbose,
        import_root: None,
        free_memory: false,
        cache: cache_folder
            .as_deref()
            .and_then(|folder| cache::Store::open(folder, &args.paths, &cache_key)),
    };
    if args.show_files {
        let mut resolver = config::Resolver::new(overrides)?;
        show::files(out, &check::inputs(request(stdin), &mut resolver)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    let run_check = |stdin: Stdin| -> anyhow::Result<check::Checked> {
        check::check(request(stdin), config::Resolver::new(overrides.clone())?)
    };
    let mut checked = run_check(stdin.clone())?;
    // The folders searched: a link found in one is never written through to a file outside it.
    let walked: Vec<PathBuf> = args.paths.iter().filter(|p| p.is_dir()).cloned().collect();
    // A file the run could not write (a fix, a report): the exit status says so.
    let mut errors = false;
    let mode = fixes::Mode {
        unsafe_fixes: args.unsafe_fixes,
    };
    if args.diff {
        return diff(out, &checked, mode);
    }
    if let Some(path) = &args.write_baseline {
        return write_baseline(path, &checked);
    }
    if args.add_noqa {
        return add_noqa(&checked, &walked);
    }
    if args.fix {
        if let Some((path, bytes)) = stdin {
            return fix_stdin(out, path, bytes, checked, &run_check, &args);
        }
        let unwritten;
        (checked, unwritten) = fix_files(checked, &run_check, mode, &walked)?;
        errors |= unwritten;
    }
    let color = args.output_file.is_none() && output::use_color(args.color);
    report(out, checked, &args, color, errors)
}

/// The options that change which files are read and how (`--config` files and KEY = VALUE
/// settings, exclusions); selection and severities apply after the cache, on every run.
fn cache_key(args: &CheckArgs) -> String {
    format!(
        "{:?} {:?} {:?} {} {:?} {:?}",
        args.target_version,
        args.platform,
        args.config,
        args.isolated,
        args.exclude,
        args.extend_exclude
    )
}

/// `--diff`: the fixes as a unified diff, nothing written; the exit status says whether there
/// is one.
fn diff(
    out: &mut impl Write,
    checked: &check::Checked,
    mode: fixes::Mode,
) -> anyhow::Result<ExitCode> {
    let (changes, count) = fixes::fixed_texts(checked, mode);
    fixes::write_diff(out, &changes)?;
    out.flush()?;
    if count > 0 {
        eprintln!("Would fix {count} finding{}.", plural(count));
    }
    Ok(ExitCode::from(u8::from(!changes.is_empty())))
}

/// `--write-baseline PATH`: every finding but read errors, recorded at `path`.
fn write_baseline(path: &Path, checked: &check::Checked) -> anyhow::Result<ExitCode> {
    refuse_overwriting_a_source(path, &checked.files, "the baseline")?;
    let count = baseline::write(path, &checked.files, &checked.diagnostics)?;
    eprintln!(
        "Wrote {count} finding{} to the baseline {}.",
        plural(count),
        path.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// `--add-noqa`: a directive on each line where a finding starts.
fn add_noqa(checked: &check::Checked, walked: &[PathBuf]) -> anyhow::Result<ExitCode> {
    let added = add_noqa::add(checked, walked)?;
    for line in &added.skipped {
        eprintln!("gpulint: {line}: no noqa comment added: a comment there would not be one (a string or a line continuation)");
    }
    eprintln!(
        "Added {} noqa directive{}.",
        added.lines,
        plural(added.lines)
    );
    Ok(ExitCode::SUCCESS)
}

/// `--fix` on files: writes the fixes and checks again, round after round, until none is left;
/// returns the last check, and whether some file could not be written.
fn fix_files(
    mut checked: check::Checked,
    run_check: &dyn Fn(Stdin) -> anyhow::Result<check::Checked>,
    mode: fixes::Mode,
    walked: &[PathBuf],
) -> anyhow::Result<(check::Checked, bool)> {
    // A file that could not be written is left alone from then on: the others are still fixed.
    let mut unwritten: BTreeSet<PathBuf> = BTreeSet::new();
    // Fixes that overlap wait for the next round; ten rounds is more than any file needs.
    for _ in 0..10 {
        let (mut changes, _) = fixes::fixed_texts(&checked, mode);
        changes.retain(|path, _| !unwritten.contains(path));
        if changes.is_empty() {
            break;
        }
        let refused = fixes::write_files(&changes, walked);
        for (path, reason) in refused {
            eprintln!(
                "gpulint: {}: fix not written: {reason}; the file is as it was",
                crate::paths::relative(&path)
            );
            changes.remove(&path);
            unwritten.insert(path);
        }
        let fixed = checked.fixed + changes.values().map(|c| c.fixes).sum::<usize>();
        checked = run_check(None)?;
        checked.fixed = fixed;
    }
    Ok((checked, !unwritten.is_empty()))
}

/// `--fix` on standard input: the fixed source goes to standard output (as editors expect), the
/// report of what is left to standard error.
fn fix_stdin(
    out: &mut impl Write,
    path: PathBuf,
    mut bytes: Vec<u8>,
    mut checked: check::Checked,
    run_check: &dyn Fn(Stdin) -> anyhow::Result<check::Checked>,
    args: &CheckArgs,
) -> anyhow::Result<ExitCode> {
    let mode = fixes::Mode {
        unsafe_fixes: args.unsafe_fixes,
    };
    let mut fixed = 0;
    for _ in 0..10 {
        let (changes, count) = fixes::fixed_texts(&checked, mode);
        // Only the standard input is checked, so only it has fixes.
        let Some(change) = changes.into_values().next() else {
            break;
        };
        bytes = change.new.into_bytes();
        fixed += count;
        checked = run_check(Some((path.clone(), bytes.clone())))?;
    }
    checked.fixed = fixed;
    out.write_all(&bytes)?;
    out.flush()?;
    let color = args.output_file.is_none() && args.color == Color::Always;
    report(&mut std::io::stderr().lock(), checked, args, color, false)
}

/// Writes the report (to `--output-file`, else `out`) and gives the exit status.
fn report(
    out: &mut impl Write,
    checked: check::Checked,
    args: &CheckArgs,
    color: bool,
    errors: bool,
) -> anyhow::Result<ExitCode> {
    let options = output::Options {
        format: args.output_format,
        color,
        quiet: args.quiet,
        statistics: args.statistics,
        paths: args.paths.clone(),
        unsafe_fixes: args.unsafe_fixes,
    };
    match &args.output_file {
        Some(path) => {
            refuse_overwriting_a_source(path, &checked.files, "the report")?;
            let mut report = Vec::new();
            output::write(&mut report, &checked, &options)?;
            gpulint_core::fsio::write_whole(path, &report)
                .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
        }
        None => {
            output::write(out, &checked, &options)?;
            out.flush()?;
        }
    }
    let internal = errors || !checked.internal_errors.is_empty();
    let findings = checked.failing > 0 && !args.exit_zero;
    // The process is about to end: freeing every module's model one by one only costs time.
    std::mem::forget(checked);
    Ok(ExitCode::from(if internal {
        2
    } else if findings {
        1
    } else {
        0
    }))
}

/// The file on standard input, for `--stdin-filename PATH` or the path `-` (reported as `-`).
fn read_stdin(args: &CheckArgs) -> anyhow::Result<Stdin> {
    let dash = args.paths.iter().any(|p| p == Path::new("-"));
    if dash && args.paths.len() > 1 {
        anyhow::bail!("`-` (standard input) cannot be checked together with other paths");
    }
    let path = match (&args.stdin_filename, dash) {
        (Some(path), _) => path.clone(),
        (None, true) => PathBuf::from("-"),
        (None, false) => return Ok(None),
    };
    if args.add_noqa {
        anyhow::bail!("--add-noqa does not rewrite standard input");
    }
    // Bytes, not text: invalid UTF-8 or a NUL byte is a finding, as in a file.
    let limit = gpulint_core::fsio::MAX_FILE_BYTES;
    let bytes = gpulint_core::fsio::read_bounded(std::io::stdin(), 0, limit)
        .map_err(|e| anyhow::anyhow!("cannot read standard input: {e}"))?
        .ok_or_else(|| {
            anyhow::anyhow!(
                "standard input is larger than {} MiB: not checked",
                limit >> 20
            )
        })?;
    Ok(Some((path, bytes)))
}

/// The cache's folder for this run (see `cache::folder`).
fn cache_folder(args: &CheckArgs, overrides: &config::Overrides) -> anyhow::Result<PathBuf> {
    let first = args
        .paths
        .first()
        .cloned()
        .unwrap_or_else(|| PathBuf::from("."));
    // A folder's configuration is that of a file directly in it.
    let probe = match first.is_dir() {
        true => first.join("__init__.py"),
        false => first.clone(),
    };
    let config_file = config::Resolver::new(overrides.clone())?
        .config_for(&probe)?
        .source()
        .map(Path::to_path_buf);
    Ok(cache::folder(
        args.cache_dir.as_deref(),
        config_file.as_deref(),
        &first,
    ))
}

/// What the command line sets over each file's configuration.
fn overrides(args: &CheckArgs) -> anyhow::Result<config::Overrides> {
    let (file, settings) = config_arguments(&args.config)?;
    if let (Some(file), true) = (&file, args.isolated) {
        anyhow::bail!(
            "--isolated reads no configuration file: it cannot be used with --config {}",
            file.display()
        );
    }
    let excludes = |flag: &str, values: &[String]| {
        config::Excludes::parse(flag, values).map_err(anyhow::Error::msg)
    };
    let python = match (&args.python, args.no_python) {
        (_, true) => Some(config::PythonChoice::Off),
        (Some(path), false) => Some(config::PythonChoice::Path(path.clone())),
        (None, false) => None,
    };
    Ok(config::Overrides {
        python,
        target_version: args.target_version,
        platform: args.platform.map(Into::into),
        config: file,
        settings: config::parse_settings(&settings)?.map(std::sync::Arc::new),
        isolated: args.isolated,
        exclude: match &args.exclude {
            Some(values) => Some(excludes("--exclude", values)?),
            None => None,
        },
        extend_exclude: match args.extend_exclude.as_slice() {
            [] => None,
            values => Some(excludes("--extend-exclude", values)?),
        },
        fail_on: args.fail_on.map(Into::into),
        selection: selection::Selection {
            select: args.select.clone(),
            extend_select: args.extend_select.clone(),
            ignore: args.ignore.clone(),
        },
        per_file_ignores: match args.per_file_ignores.as_slice() {
            [] => None,
            values => Some(
                config::FileIgnores::parse(values)
                    .map_err(|e| anyhow::anyhow!("--per-file-ignores: {e}"))?,
            ),
        },
        baseline: args.baseline.clone(),
    })
}

/// The `--config` values, as ruff reads them: one that names an existing path is a configuration
/// file (read later, where a FIFO or a device is refused by name); any other must be a TOML
/// `KEY = VALUE` setting. Returns the file, and the settings in order.
fn config_arguments(values: &[String]) -> anyhow::Result<(Option<PathBuf>, Vec<String>)> {
    let mut file: Option<PathBuf> = None;
    let mut settings = Vec::new();
    for value in values {
        if std::fs::symlink_metadata(value).is_ok() {
            if let Some(first) = &file {
                anyhow::bail!(
                    "--config names two configuration files ({} and {value}): give one, and any \
                     number of KEY = VALUE settings",
                    first.display()
                );
            }
            file = Some(PathBuf::from(value));
            continue;
        }
        if let Err(why) = config::is_setting(value) {
            anyhow::bail!(
                "--config {}: neither a file nor a valid `KEY = VALUE` TOML setting (no such \
                 file; as TOML: {why})",
                quoted(value)
            );
        }
        settings.push(value.clone());
    }
    Ok((file, settings))
}

/// A command-line value as it could be typed again: in single quotes, each quote escaped.
fn quoted(value: &str) -> String {
    format!("'{}'", value.replace('\'', "'\\''"))
}

/// An error where `path` (a report, a baseline) names a file the run read as a source: writing it
/// would replace the user's code.
fn refuse_overwriting_a_source(
    path: &Path,
    files: &crate::files::RunFiles,
    what: &str,
) -> anyhow::Result<()> {
    let Ok(target) = std::fs::canonicalize(path) else {
        // It does not exist yet: it is no source.
        return Ok(());
    };
    let source = files
        .all()
        .any(|(_, f)| std::fs::canonicalize(&f.path).is_ok_and(|p| p == target));
    if source {
        anyhow::bail!(
            "{} is a file this run checks or imports: {what} was not written over it",
            path.display()
        );
    }
    Ok(())
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
