//! The `gpulint` command line: arguments, file discovery, checking in parallel, output.

mod check;
mod cli;
mod config;
mod discover;
mod fingerprint;
mod fixes;
mod noqa;
mod output;
mod paths;
mod selection;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use gpulint_python::program::{Input, Program};
use gpulint_python::semantic::{ImportCache, Settings};
use gpulint_python::source::FileId;

use cli::{Cli, Command, RulesFormat};

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(err) => {
            // `gpulint ... | head`: the reader left; nothing more to say.
            if err
                .chain()
                .filter_map(|e| e.downcast_ref::<std::io::Error>())
                .any(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            {
                return ExitCode::SUCCESS;
            }
            match err.downcast_ref::<config::ConfigError>() {
                // Already a full report: the file, the line, the key.
                Some(config) => eprint!("{}", config.render()),
                None => eprintln!("gpulint: error: {err:#}"),
            }
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match cli.command {
        Command::Check(args) => {
            let stdin = match &args.stdin_filename {
                Some(_) if args.fix => {
                    anyhow::bail!("--fix does not rewrite standard input; use --diff")
                }
                Some(path) => {
                    // Bytes, not text: invalid UTF-8 or a NUL byte is a finding, as in a file.
                    let bytes = gpulint_python::program::read_bounded(std::io::stdin(), 0)
                        .map_err(|e| anyhow::anyhow!("cannot read standard input: {e}"))?
                        .ok_or_else(|| {
                            anyhow::anyhow!(
                                "standard input is larger than {} MiB: not checked",
                                gpulint_python::program::MAX_FILE_BYTES >> 20
                            )
                        })?;
                    Some((path.clone(), bytes))
                }
                None => None,
            };
            let overrides = config::Overrides {
                target_version: args.target_version,
                platform: args.platform.map(Into::into),
                config: args.config.clone(),
                isolated: args.isolated,
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
            };
            let named: Vec<PathBuf> = args.paths.iter().filter(|p| p.is_file()).cloned().collect();
            // Walks again each time: a fix round re-reads the files it wrote.
            let run_check = || -> anyhow::Result<check::Checked> {
                let request = check::Request {
                    found: match stdin {
                        Some(_) => Vec::new(),
                        None => discover::discover(&args.paths),
                    },
                    stdin: stdin.clone(),
                    named: named.clone(),
                    report_unused_noqa: args.report_unused_noqa,
                    verbose: args.verbose,
                };
                check::check(request, config::Resolver::new(overrides.clone())?)
            };
            let mut checked = run_check()?;
            let mode = fixes::Mode {
                unsafe_fixes: args.unsafe_fixes,
            };
            if args.diff {
                let (changes, count) = fixes::fixed_texts(&checked, mode);
                fixes::write_diff(&mut out, &changes)?;
                out.flush()?;
                if count > 0 {
                    eprintln!(
                        "Would fix {count} finding{}.",
                        if count == 1 { "" } else { "s" }
                    );
                }
                return Ok(ExitCode::from(u8::from(!changes.is_empty())));
            }
            if args.fix {
                // Fixes that overlap wait for the next round; ten rounds is more than any file needs.
                for _ in 0..10 {
                    let (changes, count) = fixes::fixed_texts(&checked, mode);
                    if changes.is_empty() {
                        break;
                    }
                    fixes::write_files(&changes)?;
                    let fixed = checked.fixed + count;
                    checked = run_check()?;
                    checked.fixed = fixed;
                }
            }
            let checked = checked;
            let options = output::Options {
                format: args.output_format,
                // A file gets no colour codes.
                color: args.output_file.is_none() && output::use_color(args.color),
                quiet: args.quiet,
                statistics: args.statistics,
            };
            match &args.output_file {
                Some(path) => {
                    let file = std::fs::File::create(path)
                        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
                    let mut writer = std::io::BufWriter::new(file);
                    output::write(&mut writer, &checked, &options)?;
                    writer.flush()?;
                }
                None => {
                    output::write(&mut out, &checked, &options)?;
                    out.flush()?;
                }
            }
            let internal = !checked.internal_errors.is_empty();
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
        Command::Rule { code } => match gpulint_rules::rule(&code) {
            Some(rule) => {
                writeln!(out, "# {} ({})\n", rule.name, rule.code)?;
                writeln!(out, "Default severity: {}\n", rule.severity.as_str())?;
                writeln!(out, "{}", rule.docs.trim_end())?;
                Ok(ExitCode::SUCCESS)
            }
            None => anyhow::bail!("unknown rule `{code}`; `gpulint rules` lists them"),
        },
        Command::Probe(args) => {
            for h in &args.hazard {
                if gpulint_probe::resolve_hazard(h).is_none() {
                    let known: Vec<String> = gpulint_probe::HAZARDS
                        .iter()
                        .map(|(c, n)| format!("{c} ({n})"))
                        .collect();
                    anyhow::bail!("--hazard {h}: the probe reproduces {}", known.join(", "));
                }
            }
            if !(0.1..=86_400.0).contains(&args.timeout) {
                anyhow::bail!("--timeout must be between 0.1 and 86400 seconds");
            }
            let opts = gpulint_probe::Options {
                json: args.json,
                findings: args.findings,
                hazards: args.hazard,
                workers: args.workers.map(usize::from),
                timeout: std::time::Duration::from_secs_f64(args.timeout),
            };
            let code = gpulint_probe::run(&opts, &mut out);
            out.flush()?;
            Ok(ExitCode::from(code as u8))
        }
        Command::ProbeWorker { args } => Ok(ExitCode::from(gpulint_probe::worker_main(args) as u8)),
        Command::Facts { path } => {
            let program = Program::build(vec![Input::Path(path)]);
            let main = FileId(0);
            if let Err(err) = &program.file(main).module {
                anyhow::bail!("{err:?}");
            }
            let cache =
                ImportCache::<gpulint_analyses::Analyses>::build(&program, Settings::default());
            let facts =
                gpulint_python::semantic::analyze(&program, &cache, main, Settings::default());
            writeln!(out, "{facts:#?}")?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Rules { output_format } => {
            match output_format {
                RulesFormat::Text => {
                    writeln!(
                        out,
                        "{:<8} {:<34} {:<8} summary",
                        "code", "name", "severity"
                    )?;
                    for rule in gpulint_rules::RULES {
                        writeln!(
                            out,
                            "{:<8} {:<34} {:<8} {}",
                            rule.code,
                            rule.name,
                            rule.severity.as_str(),
                            rule.summary
                        )?;
                    }
                }
                RulesFormat::Markdown => write!(out, "{}", gpulint_rules::markdown_reference())?,
                RulesFormat::Json => {
                    let rules: Vec<serde_json::Value> = gpulint_rules::RULES
                        .iter()
                        .map(|r| {
                            serde_json::json!({
                                "code": r.code,
                                "name": r.name,
                                "severity": r.severity.as_str(),
                                "summary": r.summary,
                                "explanation": r.docs,
                            })
                        })
                        .collect();
                    serde_json::to_writer_pretty(&mut out, &rules)?;
                    writeln!(out)?;
                }
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
