//! The reproductions: each hazard run as it happens in user code, then each fix, timed.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::host::Env;
use crate::proc::{now_ns, Worker};
use crate::report::{Fix, Hazard, Verdict};

pub struct Plan<'a> {
    pub env: &'a Env,
    pub workers: usize,
    pub timeout: Duration,
}

fn median(mut xs: Vec<f64>) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    xs.sort_by(|a, b| a.total_cmp(b));
    Some(xs[xs.len() / 2])
}

fn median_u64(xs: Vec<u64>) -> Option<u64> {
    median(xs.into_iter().map(|x| x as f64).collect()).map(|m| m as u64)
}

/// Mentions a CUDA error reported by a worker line.
/// Per pid: the (CUDA ordinal, MiB) pairs where NVML lists it.
type ByPid = BTreeMap<u32, Vec<(i32, u64)>>;
/// Per CUDA ordinal: the (pid, MiB) pairs NVML lists there.
type ByGpu = BTreeMap<i32, Vec<(u32, u64)>>;
/// One JSON line per worker, `None` where a worker gave nothing in time.
type Lines = Vec<Option<Value>>;

fn error_text(v: &Value) -> String {
    let e = &v["error"];
    format!(
        "{} → {} {} \"{}\"",
        e["call"].as_str().unwrap_or("?"),
        e["code"],
        e["name"].as_str().unwrap_or(""),
        e["text"].as_str().unwrap_or("")
    )
}

impl Plan<'_> {
    fn deadline(&self) -> Instant {
        Instant::now() + self.timeout
    }

    fn hold_ms(&self) -> String {
        format!("hold={}", self.timeout.as_millis() * 3)
    }

    fn device_for(&self, i: usize) -> i32 {
        i as i32 % self.env.gpu_count().max(1)
    }

    /// Starts one `role` worker per argument list, reads one line from each, runs `while_held`
    /// while they still hold their GPU memory (an NVML snapshot), then releases them.
    fn run_spawned<T>(
        &self,
        role: &str,
        args: Vec<Vec<String>>,
        while_held: impl FnOnce(&Lines) -> T,
    ) -> (Lines, T) {
        let workers: Vec<_> = args
            .into_iter()
            .map(|mut a| {
                a.push(self.hold_ms());
                Worker::spawn(role, &a, &[])
            })
            .collect();
        let deadline = self.deadline();
        let lines: Lines = workers
            .iter()
            .map(|w| w.as_ref().ok().and_then(|w| w.next(deadline)))
            .collect();
        let held = while_held(&lines);
        for w in workers.into_iter().flatten() {
            w.finish(self.deadline());
        }
        (lines, held)
    }

    /// NVML's holders by pid: for each pid, the (ordinal, MiB) pairs where it holds memory.
    fn by_pid(&self) -> Option<ByPid> {
        let mut out = ByPid::new();
        for (ordinal, procs) in self.env.holders()? {
            for (pid, mib) in procs {
                out.entry(pid).or_default().push((ordinal, mib));
            }
        }
        Some(out)
    }

    // ---------------------------------------------------------------- GPU001

    pub fn gpu001(&self) -> Hazard {
        let mut z = Hazard::new("GPU001", "fork-after-cuda-init");
        let run = Worker::spawn(
            "fork-after-init",
            &[
                "device=0".into(),
                format!("timeout={}", self.timeout.as_millis()),
                self.hold_ms(),
            ],
            &[],
        );
        let deadline = self.deadline() + Duration::from_secs(2);
        let line = run.as_ref().ok().and_then(|w| w.next(deadline));
        let holders = self.by_pid();
        let stderr = run
            .map(|w| w.finish(deadline))
            .unwrap_or_else(|e| e.to_string());
        match line {
            None => {
                z.evidence = format!(
                    "the reproduction gave no result within {:?}: {stderr}",
                    self.timeout
                );
            }
            Some(v) if v["event"] == "error" => {
                z.verdict = Verdict::Skipped;
                z.reason = Some(format!(
                    "the parent could not initialise CUDA: {}",
                    error_text(&v)
                ));
            }
            Some(v) => {
                let calls = v["calls"].as_array().cloned().unwrap_or_default();
                let (parent, child) = (&v["parent_pid"], &v["child_pid"]);
                let mut e = format!("pid {parent} called cuInit and made a context on GPU 0, then fork(); in child pid {child}:");
                for c in &calls {
                    let _ = write!(
                        e,
                        "\n  {} → {} {} \"{}\" ({:.3} ms)",
                        c["call"].as_str().unwrap_or("?"),
                        c["code"],
                        c["name"].as_str().unwrap_or(""),
                        c["text"].as_str().unwrap_or(""),
                        c["us"].as_f64().unwrap_or(0.0) / 1000.0
                    );
                }
                let first_failed = calls.first().is_some_and(|c| c["code"] != 0);
                if v["hung"] == true {
                    z.verdict = Verdict::Reproduced;
                    let _ = write!(
                        e,
                        "\n  {} did not return: the child hung and the watchdog killed it after {:.1} s",
                        v["hung_in"].as_str().unwrap_or("a call"),
                        self.timeout.as_secs_f64()
                    );
                } else if first_failed {
                    z.verdict = Verdict::Reproduced;
                } else {
                    let _ = write!(e, "\n  every call in the child succeeded: this driver supports CUDA after fork");
                }
                if let Some(h) = &holders {
                    let held = |pid: &Value| {
                        let spots: Vec<String> = h
                            .get(&(pid.as_u64().unwrap_or(0) as u32))
                            .into_iter()
                            .flatten()
                            .map(|(o, m)| format!("{m} MiB on GPU {o}"))
                            .collect();
                        if spots.is_empty() {
                            "nothing".to_string()
                        } else {
                            spots.join(", ")
                        }
                    };
                    let _ = write!(
                        e,
                        "\n  NVML: the parent (pid {parent}) holds {}; the child (pid {child}) holds {}",
                        held(parent),
                        held(child)
                    );
                }
                if let Some(sig) = v["signal"].as_i64() {
                    let _ = write!(e, "\n  the child died of signal {sig}");
                }
                z.evidence = e;
            }
        }
        z.fixes = vec![
            self.spawn_fix(),
            self.fork_before_init_fix(),
            self.forkserver_fix(),
        ];
        z
    }

    /// Reads one ready (or error) line per worker and builds the fix row; `extra` goes first in
    /// the detail.
    fn group_fix(&self, name: &'static str, lines: &[Option<Value>], extra: &str) -> Fix {
        let holders = self.by_pid();
        let mut ms = Vec::new();
        let mut mib = Vec::new();
        let mut problems = Vec::new();
        for v in lines.iter() {
            match v {
                Some(v) if v["event"] == "ready" => {
                    ms.push(v["ms"].as_f64().unwrap_or(0.0));
                    let pid = v["pid"].as_u64().unwrap_or(0) as u32;
                    let dev = v["device"].as_i64().unwrap_or(0) as i32;
                    if let Some(h) = &holders {
                        let held = h.get(&pid).and_then(|l| l.iter().find(|(o, _)| *o == dev));
                        match held {
                            Some((_, m)) => mib.push(*m),
                            None => {
                                problems.push(format!("NVML does not list pid {pid} on GPU {dev}"))
                            }
                        }
                    }
                }
                Some(v) => problems.push(error_text(v)),
                None => problems.push(format!("a worker gave no result within {:?}", self.timeout)),
            }
        }
        let works = ms.len() == lines.len();
        let mut detail = extra.to_string();
        if let (Some(lo), Some(hi)) = (
            ms.iter().copied().reduce(f64::min),
            ms.iter().copied().reduce(f64::max),
        ) {
            let _ = write!(
                detail,
                "{} workers: {lo:.1}–{hi:.1} ms to first allocation",
                ms.len()
            );
        }
        if holders.is_none() {
            detail.push_str("; no NVML: memory not measured");
        }
        for p in problems {
            let _ = write!(detail, "; {p}");
        }
        Fix {
            name,
            ms: median(ms),
            mib: median_u64(mib),
            works,
            detail,
        }
    }

    fn spawn_fix(&self) -> Fix {
        let t0 = now_ns();
        let args = (0..self.workers)
            .map(|i| vec![format!("device={}", self.device_for(i)), format!("t0={t0}")])
            .collect();
        self.run_spawned("alloc", args, |lines| self.group_fix("spawn", lines, ""))
            .1
    }

    fn fork_before_init_fix(&self) -> Fix {
        let devices: Vec<String> = (0..self.workers)
            .map(|i| self.device_for(i).to_string())
            .collect();
        let w = Worker::spawn(
            "forker",
            &[format!("devices={}", devices.join(",")), self.hold_ms()],
            &[],
        );
        let deadline = self.deadline();
        let lines: Lines = (0..self.workers)
            .map(|_| w.as_ref().ok().and_then(|w| w.next(deadline)))
            .collect();
        let fix = self.group_fix("fork-before-init", &lines, "");
        if let Ok(w) = w {
            w.finish(self.deadline());
        }
        fix
    }

    fn forkserver_fix(&self) -> Fix {
        let start = now_ns();
        let mut server = match Worker::spawn("forkserver", &[self.hold_ms()], &[]) {
            Ok(s) => s,
            Err(e) => {
                return Fix {
                    name: "forkserver",
                    ms: None,
                    mib: None,
                    works: false,
                    detail: e.to_string(),
                }
            }
        };
        let deadline = self.deadline();
        let up = server.next(deadline);
        let up_ms = crate::proc::ms_since(start);
        let mut lines = Vec::new();
        if up.is_some() {
            for i in 0..self.workers {
                server.send(&format!("fork {} {}", self.device_for(i), now_ns()));
            }
            lines = (0..self.workers).map(|_| server.next(deadline)).collect();
        } else {
            lines.resize(self.workers, None);
        }
        let fix = self.group_fix(
            "forkserver",
            &lines,
            &format!("server up in {up_ms:.1} ms (once); "),
        );
        server.finish(self.deadline());
        fix
    }

    // ---------------------------------------------------------------- GPU002

    pub fn gpu002(&self) -> Hazard {
        const RULE: (&str, &str) = ("GPU002", "device-pinned-global");
        if self.env.nvml.is_none() {
            return Hazard::skipped(
                RULE.0,
                RULE.1,
                "needs NVML to see which process holds memory on which GPU",
            );
        }
        let n = self.workers;
        let gpus = self.env.gpu_count();
        let (lines, holders) = self.model_group(|_| 0);
        let ours = lines
            .iter()
            .flatten()
            .filter(|v| v["event"] == "ready")
            .filter_map(|v| v["pid"].as_u64());
        if ours.clone().count() > 0 && !ours.into_iter().any(|p| holders.contains_key(&(p as u32)))
        {
            let why = match self.env.process_query_error() {
                Some(err) => format!("NVML cannot list the processes on a GPU: {err}"),
                None => {
                    let listed = holders
                        .keys()
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join(", ");
                    format!(
                        "NVML lists none of the workers' pids (it lists: {}); inside a container with its own pid namespace NVML reports host pids",
                        if listed.is_empty() { "none" } else { &listed }
                    )
                }
            };
            return Hazard::skipped(RULE.0, RULE.1, why);
        }
        let mut e = format!("{n} spawned workers each loaded a 256 MiB model on GPU 0 before choosing GPU (worker % {gpus}); NVML:");
        let mut failed = Vec::new();
        let mut on_zero = 0;
        let mut mismatched = 0;
        let mut pile_mib = 0;
        for v in &lines {
            let Some(v) = v.as_ref().filter(|v| v["event"] == "ready") else {
                failed.push(v.as_ref().map_or("no result".to_string(), error_text));
                continue;
            };
            let pid = v["pid"].as_u64().unwrap_or(0) as u32;
            let own = v["own"].as_i64().unwrap_or(0) as i32;
            let held = holders.get(&pid).cloned().unwrap_or_default();
            let zero = held.iter().find(|(o, _)| *o == 0).map(|(_, m)| *m);
            if let Some(m) = zero {
                on_zero += 1;
                pile_mib += m;
            }
            if own != 0 && zero.is_some() {
                mismatched += 1;
            }
            let spots: Vec<String> = held
                .iter()
                .map(|(o, m)| format!("GPU {o}: {m} MiB"))
                .collect();
            let _ = write!(
                e,
                "\n  pid {pid} (chose GPU {own}): {}",
                if spots.is_empty() {
                    "not listed".into()
                } else {
                    spots.join(", ")
                }
            );
        }
        let _ = write!(
            e,
            "\n  GPU 0 holds {on_zero} of {n} workers, {pile_mib} MiB in all"
        );
        let mut z = Hazard::new(RULE.0, RULE.1);
        if gpus >= 2 {
            let _ = write!(
                e,
                "\n  {mismatched} of the workers that chose another GPU still hold their model on GPU 0: their tensors on their own GPU will not match it"
            );
            if on_zero == n && mismatched > 0 {
                z.verdict = Verdict::Reproduced;
            }
        } else {
            let _ = write!(
                e,
                "\n  the device-mismatch part is skipped: it needs ≥ 2 GPUs"
            );
            if on_zero == n {
                z.verdict = Verdict::Reproduced;
            }
        }
        for f in failed {
            let _ = write!(e, "\n  a worker failed: {f}");
        }
        z.evidence = e;
        z.fixes = vec![self.device_first_fix()];
        z
    }

    /// Starts the model workers (model on `load(i)`, then GPU `i % gpus`), waits for each, and
    /// snapshots NVML while they hold their memory.
    fn model_group(&self, load: impl Fn(usize) -> i32) -> (Lines, ByPid) {
        let t0 = now_ns();
        let args = (0..self.workers)
            .map(|i| {
                vec![
                    format!("load={}", load(i)),
                    format!("own={}", self.device_for(i)),
                    "mib=256".into(),
                    format!("t0={t0}"),
                ]
            })
            .collect();
        self.run_spawned("model", args, |_| self.by_pid().unwrap_or_default())
    }

    fn device_first_fix(&self) -> Fix {
        let (lines, holders) = self.model_group(|i| self.device_for(i));
        let mut ms = Vec::new();
        let mut mib = Vec::new();
        let mut problems = Vec::new();
        let mut spread: BTreeMap<i32, usize> = BTreeMap::new();
        for v in &lines {
            let Some(v) = v.as_ref().filter(|v| v["event"] == "ready") else {
                problems.push(
                    v.as_ref()
                        .map_or("a worker gave no result".to_string(), error_text),
                );
                continue;
            };
            let pid = v["pid"].as_u64().unwrap_or(0) as u32;
            let own = v["own"].as_i64().unwrap_or(0) as i32;
            let held = holders.get(&pid).cloned().unwrap_or_default();
            match held.as_slice() {
                [(o, m)] if *o == own => {
                    ms.push(v["ms"].as_f64().unwrap_or(0.0));
                    mib.push(*m);
                    *spread.entry(own).or_default() += 1;
                }
                _ => problems.push(format!(
                    "pid {pid} chose GPU {own} but NVML lists it on {held:?}"
                )),
            }
        }
        let works = problems.is_empty() && ms.len() == lines.len();
        let per_gpu: Vec<String> = spread
            .iter()
            .map(|(g, c)| format!("GPU {g}: {c}"))
            .collect();
        let mut detail = format!(
            "each worker only on its own GPU per NVML ({})",
            per_gpu.join(", ")
        );
        for p in problems {
            let _ = write!(detail, "; {p}");
        }
        Fix {
            name: "device-first",
            ms: median(ms),
            mib: median_u64(mib),
            works,
            detail,
        }
    }

    // ---------------------------------------------------------------- GPU003

    /// GPU003 with every rank started here (one per GPU), or, under a launcher, as this one rank.
    pub fn gpu003(&self) -> Hazard {
        const RULE: (&str, &str) = ("GPU003", "process-group-before-set-device");
        if let Some(why) = &self.env.nccl_missing {
            return Hazard::skipped(RULE.0, RULE.1, format!("needs NCCL: {why}"));
        }
        let gpus = self.env.gpu_count();
        let make_ids = || -> Result<String, String> {
            let a = crate::nccl::unique_id()
                .map_err(|e| format!("{} → {} {}", e.call, e.code, e.text))?;
            let b = crate::nccl::unique_id()
                .map_err(|e| format!("{} → {} {}", e.call, e.code, e.text))?;
            Ok(format!("{a} {b}"))
        };
        let (hazard_ranks, fix_ranks, nranks, ids) = match &self.env.host.launcher {
            Some(l) => {
                if l.world_size < 2 {
                    return Hazard::skipped(RULE.0, RULE.1, "needs ≥ 2 ranks (WORLD_SIZE is 1)");
                }
                let ids = match crate::launcher::exchange(l, make_ids, self.timeout) {
                    Ok(ids) => ids,
                    Err(why) => {
                        return Hazard::skipped(
                            RULE.0,
                            RULE.1,
                            format!("the ranks could not share NCCL ids: {why}"),
                        )
                    }
                };
                (
                    vec![(l.rank, None)],
                    vec![(l.rank, Some(l.local_rank % gpus))],
                    l.world_size,
                    ids,
                )
            }
            None => {
                if gpus < 2 {
                    return Hazard::skipped(
                        RULE.0,
                        RULE.1,
                        "needs ≥ 2 GPUs: with one GPU every rank is on GPU 0 whatever the order",
                    );
                }
                let n = (self.workers as i32).clamp(2, gpus);
                let ids = match make_ids() {
                    Ok(ids) => ids,
                    Err(why) => return Hazard::skipped(RULE.0, RULE.1, why),
                };
                (
                    (0..n).map(|r| (r, None)).collect(),
                    (0..n).map(|r| (r, Some(r))).collect(),
                    n,
                    ids,
                )
            }
        };
        let (hazard_id, fix_id) = ids.split_once(' ').unwrap_or((&ids, &ids));
        let mut z = Hazard::new(RULE.0, RULE.1);
        let (lines, holders) = self.ranks(hazard_id, &hazard_ranks, nranks);
        let mut e =
            format!("{nranks} ranks created their NCCL communicator without choosing a GPU first:");
        let mut duplicate = false;
        let mut elsewhere_on_zero = false;
        let mut all_zero = true;
        for (&(r, _), v) in hazard_ranks.iter().zip(&lines) {
            match v {
                Some(v) if v["ok"] == true => {
                    let dev = v["comm_device"].as_i64().unwrap_or(-1);
                    all_zero &= dev == 0;
                    elsewhere_on_zero |= dev == 0
                        && self
                            .env
                            .host
                            .launcher
                            .as_ref()
                            .is_some_and(|l| l.local_rank != 0);
                    let _ = write!(
                        e,
                        "\n  rank {r} (pid {}): communicator on GPU {dev}",
                        v["pid"]
                    );
                }
                Some(v) if v["event"] == "rank" => {
                    all_zero = false;
                    let err = &v["error"];
                    duplicate |= err["code"] == 5;
                    let _ = write!(
                        e,
                        "\n  rank {r} (pid {}): {} → {} \"{}\"; last error: \"{}\"",
                        v["pid"],
                        err["call"].as_str().unwrap_or("?"),
                        err["code"],
                        err["text"].as_str().unwrap_or(""),
                        err["last_error"].as_str().unwrap_or("")
                    );
                }
                Some(v) => {
                    all_zero = false;
                    let _ = write!(e, "\n  rank {r}: {}", error_text(v));
                }
                None => {
                    all_zero = false;
                    let _ = write!(
                        e,
                        "\n  rank {r}: no result within {:?} (NCCL init hung?)",
                        self.timeout
                    );
                }
            }
        }
        let ours: Vec<u32> = lines
            .iter()
            .flatten()
            .filter_map(|v| v["pid"].as_u64())
            .map(|p| p as u32)
            .collect();
        if let Some(zero) = holders.get(&0) {
            let on_zero = zero.iter().filter(|(p, _)| ours.contains(p)).count();
            let _ = write!(
                e,
                "\n  NVML: GPU 0 holds {on_zero} of the {} rank processes started here",
                ours.len()
            );
        }
        let local = self.env.host.launcher.is_none();
        if duplicate || (local && all_zero) || elsewhere_on_zero {
            z.verdict = Verdict::Reproduced;
        }
        if local && all_zero {
            let _ = write!(e, "\n  every rank's communicator is on GPU 0");
        }
        z.evidence = e;
        z.fixes = vec![self.set_device_first_fix(fix_id, &fix_ranks, nranks)];
        z
    }

    /// Starts one rank process for each `(rank, device)` (no device: the rank binds none) on the
    /// NCCL id `id`; returns their lines and NVML's holders by ordinal, read while they wait.
    fn ranks(&self, id: &str, ranks: &[(i32, Option<i32>)], nranks: i32) -> (Lines, ByGpu) {
        let args = ranks
            .iter()
            .map(|(r, device)| {
                let device = device.map_or("none".to_string(), |d| d.to_string());
                vec![
                    format!("rank={r}"),
                    format!("nranks={nranks}"),
                    format!("id={id}"),
                    format!("device={device}"),
                ]
            })
            .collect();
        self.run_spawned("nccl-rank", args, |_| {
            self.env.holders().unwrap_or_default()
        })
    }

    fn set_device_first_fix(&self, id: &str, ranks: &[(i32, Option<i32>)], nranks: i32) -> Fix {
        let (lines, _) = self.ranks(id, ranks, nranks);
        let mut ms = Vec::new();
        let mut problems = Vec::new();
        let mut reduce = Vec::new();
        for (&(r, device), v) in ranks.iter().zip(&lines) {
            let ok = v.as_ref().filter(|v| v["ok"] == true);
            let Some(v) = ok else {
                problems.push(match v {
                    Some(v) if v["event"] == "rank" => format!(
                        "rank {r}: {} → {} \"{}\"",
                        v["error"]["call"].as_str().unwrap_or("?"),
                        v["error"]["code"],
                        v["error"]["last_error"].as_str().unwrap_or("")
                    ),
                    Some(v) => format!("rank {r}: {}", error_text(v)),
                    None => format!("rank {r}: no result within {:?}", self.timeout),
                });
                continue;
            };
            let ar = &v["all_reduce"];
            if ar["correct"] != true {
                let why = ar["error"]
                    .as_str()
                    .map_or("gave a wrong sum".to_string(), str::to_string);
                problems.push(format!("rank {r}: all-reduce {why}"));
                continue;
            }
            if v["comm_device"].as_i64() != device.map(i64::from) {
                problems.push(format!(
                    "rank {r}: communicator on GPU {} instead of {device:?}",
                    v["comm_device"]
                ));
                continue;
            }
            let init = v["init_ms"].as_f64().unwrap_or(0.0);
            let all = ar["ms"].as_f64().unwrap_or(0.0);
            ms.push(init + all);
            reduce.push(all);
        }
        let works = problems.is_empty() && ms.len() == lines.len();
        let detail = if works {
            format!(
                "communicator init + all-reduce of 4 MiB per rank; the all-reduce alone {:.2} ms; each rank on its own GPU, sums correct",
                median(reduce).unwrap_or(0.0)
            )
        } else {
            problems.join("; ")
        };
        Fix {
            name: "set-device-first",
            ms: median(ms),
            mib: None,
            works,
            detail,
        }
    }

    // ---------------------------------------------------------------- GPU007

    /// `CUDA_VISIBLE_DEVICES` written after the driver started is ignored: the driver reads it
    /// once, at `cuInit`.
    pub fn gpu007(&self) -> Hazard {
        const RULE: (&str, &str) = ("GPU007", "visible-devices-after-init");
        let gpus = self.env.gpu_count();
        if gpus < 2 {
            return Hazard::skipped(
                RULE.0,
                RULE.1,
                "needs ≥ 2 visible GPUs: with one, hiding the others changes nothing",
            );
        }
        let run = |late: bool| {
            let args = ["value=0".to_string(), format!("late={}", u8::from(late))];
            let w = Worker::spawn("visible-devices", &args, &[]);
            let deadline = self.deadline();
            let line = w.as_ref().ok().and_then(|w| w.next(deadline));
            if let Ok(w) = w {
                w.finish(deadline);
            }
            line
        };
        let mut z = Hazard::new(RULE.0, RULE.1);
        match run(true) {
            Some(v) if v["event"] == "visible" => {
                let (before, after) = (&v["before"], &v["after"]);
                z.evidence = format!(
                    "pid {} called cuInit and saw {before} GPUs, then set CUDA_VISIBLE_DEVICES=0: the driver still shows {after}",
                    v["pid"]
                );
                if after == before && v["after"].as_i64() != Some(1) {
                    z.verdict = Verdict::Reproduced;
                }
            }
            Some(v) => z.evidence = error_text(&v),
            None => z.evidence = format!("no result within {:?}", self.timeout),
        }
        let fix = match run(false) {
            Some(v) if v["event"] == "visible" => {
                let works = v["after"].as_i64() == Some(1);
                Fix {
                    name: "set-before-init",
                    ms: v["ms"].as_f64(),
                    mib: None,
                    works,
                    detail: format!(
                        "set before cuInit: the driver shows {} GPU(s); ms is cuInit and the count",
                        v["after"]
                    ),
                }
            }
            other => Fix {
                name: "set-before-init",
                ms: None,
                mib: None,
                works: false,
                detail: other.map_or(format!("no result within {:?}", self.timeout), |v| {
                    error_text(&v)
                }),
            },
        };
        z.fixes = vec![fix];
        z
    }
}
