//! The `gpulint` command line: arguments, file discovery, checking in parallel, output.

mod add_noqa;
mod baseline;
mod cache;
mod check;
mod cli;
mod command;
mod config;
mod discover;
mod files;
mod fingerprint;
mod fixes;
mod launches;
mod noqa;
mod output;
mod panics;
mod paths;
mod rust;
mod selection;
mod server;
mod servers;
mod show;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use gpulint_core::source::FileId;
use gpulint_python::program::{Input, Program};
use gpulint_python::semantic::{ImportCache, Settings};

use cli::{Cli, Command, ProbeArgs, RulesFormat};

#[cfg(all(target_os = "linux", not(target_env = "musl")))]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc's options, read when it starts: two arenas (the machines this runs on in CI have few
/// cores, and each arena holds its own free pages), and freed pages handed back within a second
/// instead of ten, without a second ("muzzy") stage. Measured on transformers: the same peak as
/// glibc's malloc, where jemalloc's defaults held 6 MiB more.
#[cfg(all(target_os = "linux", not(target_env = "musl")))]
#[export_name = "_rjem_malloc_conf"]
pub static MALLOC_CONF: &[u8; 47] = b"narenas:2,dirty_decay_ms:1000,muzzy_decay_ms:0\0";

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
        Command::Check(args) => command::check(*args, &mut out),
        Command::Server => {
            // The server's writer thread locks standard output itself.
            drop(out);
            server::run()
        }
        Command::Rule { code } => rule(&mut out, &code),
        Command::Probe(args) => probe(&mut out, args),
        Command::ProbeWorker { args } => Ok(ExitCode::from(gpulint_probe::worker_main(args) as u8)),
        Command::Facts { path } => facts(&mut out, path),
        Command::Rules { output_format } => rules(&mut out, output_format),
    }
}

/// `gpulint rule CODE`: the rule's documentation.
fn rule(out: &mut impl Write, code: &str) -> anyhow::Result<ExitCode> {
    match gpulint_rules::rule(code) {
        Some(rule) => {
            writeln!(out, "# {} ({})\n", rule.name, rule.code)?;
            writeln!(out, "Default severity: {}\n", rule.severity.as_str())?;
            if let Some(fix) = rule.fix.sentence() {
                writeln!(out, "{fix}\n")?;
            }
            writeln!(out, "{}", rule.docs.trim_end())?;
            Ok(ExitCode::SUCCESS)
        }
        None => anyhow::bail!("unknown rule `{code}`; `gpulint rules` lists them"),
    }
}

/// `gpulint probe`: reproduces the hazards on this machine's GPUs.
fn probe(out: &mut impl Write, args: ProbeArgs) -> anyhow::Result<ExitCode> {
    // Before any driver library is opened; the workers it starts inherit the result.
    gpulint_probe::libs::reexec_with_absolute_library_path()
        .map_err(|e| anyhow::anyhow!("cannot run the probe again: {e}"))?;
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
    let code = gpulint_probe::run(&opts, out);
    out.flush()?;
    Ok(ExitCode::from(code as u8))
}

/// `gpulint facts PATH`: what the analyses conclude of one file, for debugging.
fn facts(out: &mut impl Write, path: PathBuf) -> anyhow::Result<ExitCode> {
    let program = Program::build(vec![Input::Path(path)]);
    let main = FileId(0);
    if let Err(err) = &program.file(main).module {
        anyhow::bail!("{err:?}");
    }
    let cache = ImportCache::<gpulint_analyses::Analyses>::build(&program, Settings::default());
    let facts = gpulint_python::semantic::analyze(&program, &cache, main, Settings::default());
    writeln!(out, "{facts:#?}")?;
    Ok(ExitCode::SUCCESS)
}

/// `gpulint rules`: every rule, as a table, Markdown or JSON.
fn rules(out: &mut impl Write, output_format: RulesFormat) -> anyhow::Result<ExitCode> {
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
            serde_json::to_writer_pretty(&mut *out, &rules)?;
            writeln!(out)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
