//! `gpulint probe`: reproduces each hazard gpulint's rules describe on this host's GPUs, with
//! cudarc (driver API, NCCL) and nvml-wrapper, and times each fix.
//!
//! Every reproduction runs in processes of its own (this binary in its hidden worker mode), so a
//! crash, a hang or a poisoned CUDA state never reaches the process that reports.

mod cu;
mod findings;
mod hazards;
mod host;
mod launcher;
pub mod libs;
mod nccl;
mod proc;
mod report;
mod worker;

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

pub use report::Verdict;

/// Exit status when the host has no usable GPU, driver or device.
pub const EXIT_NO_GPU: i32 = 3;

/// The hazards the probe reproduces: (rule, name).
pub const HAZARDS: [(&str, &str); 4] = [
    ("GPU001", "fork-after-cuda-init"),
    ("GPU002", "device-pinned-global"),
    ("GPU003", "process-group-before-set-device"),
    ("GPU007", "cuda-visible-devices-after-init"),
];

pub struct Options {
    pub json: bool,
    /// `gpulint check --output-format json` output: probe only the rules found there.
    pub findings: Option<PathBuf>,
    /// Rule codes or names to run; empty means all.
    pub hazards: Vec<String>,
    /// Workers (and NCCL ranks, up to the GPU count); default: the GPU count, at least 2.
    pub workers: Option<usize>,
    /// The longest any one step may take.
    pub timeout: Duration,
}

/// The hidden worker mode's entry point.
pub fn worker_main(args: Vec<String>) -> i32 {
    worker::main(args)
}

/// Resolves `--hazard` values (codes or names) to rule codes.
pub fn resolve_hazard(name: &str) -> Option<&'static str> {
    HAZARDS
        .iter()
        .find(|(code, hazard)| code.eq_ignore_ascii_case(name) || *hazard == name)
        .map(|(code, _)| *code)
}

fn no_gpu(opts: &Options, out: &mut dyn Write, reason: &str) -> i32 {
    if opts.json {
        let _ = writeln!(
            out,
            "{}",
            serde_json::json!({"status": "no-gpu", "reason": reason})
        );
    } else {
        eprintln!("gpulint probe: no GPU: {reason}");
    }
    EXIT_NO_GPU
}

/// Runs the probe; returns the exit status (0 done, 2 bad input, 3 no GPU).
pub fn run(opts: &Options, out: &mut dyn Write) -> i32 {
    let findings = match &opts.findings {
        Some(path) => match findings::read(path) {
            Ok(f) => Some(f),
            Err(e) => {
                eprintln!("gpulint probe: {e}");
                return 2;
            }
        },
        None => None,
    };
    let wanted = wanted_hazards(opts, findings.as_deref());

    // The driver is asked for the host on this thread: a driver that never answers must not
    // hang the probe past its timeout either.
    let answered = Answered(watchdog(
        opts,
        "the CUDA driver (cuInit and the device queries)",
    ));

    if let Some(why) = driver_unusable() {
        return no_gpu(opts, out, &why);
    }
    let launcher = match launcher() {
        Ok(l) => l,
        Err(why) => {
            eprintln!("gpulint probe: {why}");
            return 2;
        }
    };
    let env = match host::gather(launcher) {
        Ok(env) => env,
        Err(e) => return no_gpu(opts, out, &format!("could not read the GPUs: {e}")),
    };
    drop(answered);
    let hazards = run_hazards(opts, &env, wanted);
    let findings_given = findings.is_some();
    let checks = findings
        .map(|f| findings::check(&f, &hazards, |code| resolve_hazard(code).is_some()))
        .unwrap_or_default();
    let report = report::Report {
        status: "ok",
        host: env.host,
        hazards,
        findings: checks,
        findings_given,
    };
    if opts.json {
        let _ = writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
    } else {
        let _ = write!(out, "{}", report::render(&report));
    }
    0
}

/// The hazards to reproduce: all, or those `--hazard` names, and of those the ones the given
/// findings hold.
fn wanted_hazards(opts: &Options, findings: Option<&[findings::Finding]>) -> Vec<&'static str> {
    let mut wanted: Vec<&str> = HAZARDS.iter().map(|(c, _)| *c).collect();
    if !opts.hazards.is_empty() {
        wanted.retain(|c| opts.hazards.iter().any(|h| resolve_hazard(h) == Some(c)));
    }
    if let Some(f) = &findings {
        wanted.retain(|c| f.iter().any(|x| x.code == *c));
    }
    wanted
}

/// Why the CUDA driver cannot run the probe (absent, too old, not starting, or seeing no device),
/// if it cannot.
fn driver_unusable() -> Option<String> {
    if !libs::cuda_present() {
        return Some(format!(
            "no CUDA driver: {} not found; {}",
            libs::names_tried("cuda"),
            libs::search_path()
        ));
    }
    if let Some(sym) = libs::cuda_missing_symbol() {
        let path = libs::cuda_path().unwrap_or_else(|| "libcuda".into());
        return Some(format!(
            "{path} has no {sym}: the driver is too old for the probe"
        ));
    }
    if let Err(e) = cu::init() {
        return Some(format!("the CUDA driver did not start: {e}"));
    }
    match cu::device_count() {
        Ok(0) => Some("the CUDA driver sees no device".into()),
        Err(e) => Some(format!("the CUDA driver did not start: {e}")),
        Ok(_) => None,
    }
}

/// Reproduces each wanted hazard with the host's GPUs.
fn run_hazards(opts: &Options, env: &host::Env, wanted: Vec<&'static str>) -> Vec<report::Hazard> {
    let workers = opts
        .workers
        .unwrap_or_else(|| (env.gpu_count() as usize).clamp(2, 8))
        .max(1);
    let plan = hazards::Plan {
        env,
        workers,
        timeout: opts.timeout,
    };
    let mut hazards = Vec::new();
    let per_host = "runs once per host: run `gpulint probe` without a launcher for it";
    for code in wanted {
        let name = HAZARDS
            .iter()
            .find(|(c, _)| *c == code)
            .map_or("", |(_, n)| *n);
        hazards.push(match code {
            // Several ranks forking workers at once on one host would blur NVML's view.
            "GPU001" | "GPU002" | "GPU007" if env.host.launcher.is_some() => {
                report::Hazard::skipped(code, name, per_host)
            }
            "GPU001" => plan.gpu001(),
            "GPU002" => plan.gpu002(),
            "GPU003" => plan.gpu003(),
            _ => plan.gpu007(),
        });
    }
    hazards
}

/// Sets the watchdog's flag when dropped, on every way out of the guarded part.
struct Answered(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl Drop for Answered {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Ends the process with exit status 3 if the returned flag is not set within the timeout.
fn watchdog(opts: &Options, what: &'static str) -> std::sync::Arc<std::sync::atomic::AtomicBool> {
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = std::sync::Arc::clone(&done);
    let (timeout, json) = (opts.timeout, opts.json);
    std::thread::spawn(move || {
        std::thread::sleep(timeout);
        if !flag.load(std::sync::atomic::Ordering::SeqCst) {
            let reason = format!(
                "{what} did not answer within {:.1} s",
                timeout.as_secs_f64()
            );
            // Raw writes and _exit: the main thread holds stdout's lock, and a driver stuck in
            // cuInit may hold locks its exit handlers would wait for.
            if json {
                proc::emit(&serde_json::json!({"status": "no-gpu", "reason": reason}));
            } else {
                let line = format!("gpulint probe: no GPU: {reason}\n");
                // SAFETY: writes a live buffer to stderr.
                unsafe { libc::write(2, line.as_ptr().cast(), line.len()) };
            }
            // SAFETY: ends the process without running exit handlers.
            unsafe { libc::_exit(EXIT_NO_GPU) }
        }
    });
    done
}

/// Slurm's compressed per-node counts, "2(x3),1" → [2, 2, 2, 1]; `None` when malformed.
fn tasks_per_node(spec: &str) -> Option<Vec<i32>> {
    let mut out = Vec::new();
    for part in spec.split(',') {
        let (count, times) = match part.split_once("(x") {
            Some((c, rest)) => (c, rest.strip_suffix(')')?.parse::<usize>().ok()?),
            None => (part, 1),
        };
        let count: i32 = count.trim().parse().ok()?;
        out.extend(std::iter::repeat_n(count, times.min(65_536)));
    }
    Some(out)
}

/// This process's place when torchrun (RANK, WORLD_SIZE) or an srun step (SLURM_PROCID,
/// SLURM_NTASKS, SLURM_STEP_ID: a batch script alone is no launch) started it; an error for
/// numbers that cannot be.
fn launcher() -> Result<Option<report::Launcher>, String> {
    let get = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let num = |name: &str| -> Result<Option<i32>, String> {
        match get(name) {
            None => Ok(None),
            Some(v) => v
                .trim()
                .parse::<i32>()
                .map(Some)
                .map_err(|_| format!("{name}={v} is not a number")),
        }
    };
    // This node's task count: SLURM_STEP_TASKS_PER_NODE ("2(x3),1") indexed by SLURM_NODEID.
    let per_node = || {
        let counts = tasks_per_node(&get("SLURM_STEP_TASKS_PER_NODE")?)?;
        let node: usize = get("SLURM_NODEID")?.trim().parse().ok()?;
        counts.get(node).copied()
    };
    let (rank, world, local, local_world) = if get("RANK").is_some() && get("WORLD_SIZE").is_some()
    {
        ("RANK", "WORLD_SIZE", "LOCAL_RANK", num("LOCAL_WORLD_SIZE")?)
    } else if get("SLURM_PROCID").is_some()
        && (get("SLURM_STEP_ID").is_some() || get("SLURM_STEPID").is_some())
    {
        ("SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", per_node())
    } else {
        return Ok(None);
    };
    let l = report::Launcher {
        rank: num(rank)?.unwrap_or(0),
        local_rank: num(local)?.unwrap_or(0),
        world_size: num(world)?.unwrap_or(1),
        local_world_size: local_world,
    };
    if l.world_size < 1 || l.rank < 0 || l.rank >= l.world_size || l.local_rank < 0 {
        return Err(format!(
            "{rank}={} {world}={} {local}={}: a rank must lie in 0..{world}",
            l.rank, l.world_size, l.local_rank
        ));
    }
    Ok(Some(l))
}

#[cfg(test)]
mod tests {
    #[test]
    fn slurm_counts_expand_per_node() {
        assert_eq!(super::tasks_per_node("2(x3),1"), Some(vec![2, 2, 2, 1]));
        assert_eq!(super::tasks_per_node("4"), Some(vec![4]));
        assert_eq!(super::tasks_per_node("2(x"), None);
        assert_eq!(super::tasks_per_node("x"), None);
    }

    #[test]
    fn hazards_resolve_by_code_or_name() {
        assert_eq!(super::resolve_hazard("gpu003"), Some("GPU003"));
        assert_eq!(
            super::resolve_hazard("fork-after-cuda-init"),
            Some("GPU001")
        );
        assert_eq!(super::resolve_hazard("GPU999"), None);
    }
}
