//! GPU001 fork-after-cuda-init: a child forked after the parent initialised CUDA cannot use it.

use std::fmt::Write;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{held_by, is_ready, median, median_u64, pid_of, problem, ByPid, Plan};
use crate::proc::{is_timeout, ms_since, now_ns, Worker};
use crate::report::{Fix, Hazard, Verdict};

impl Plan<'_> {
    pub fn gpu001(&self) -> Hazard {
        let mut z = Hazard::new("GPU001", "fork-after-cuda-init");
        let args = [
            "device=0".to_string(),
            format!("timeout={}", self.timeout.as_millis()),
            self.hold_arg(),
        ];
        // The parent's own start and the child's watchdog each get the timeout.
        let deadline = Instant::now() + self.timeout * 2 + Duration::from_secs(1);
        let (v, holders) = match Worker::start("fork-after-init", &args) {
            Ok(mut w) => {
                let v = w.next(deadline);
                let holders = self.by_pid();
                w.finish(self.deadline());
                (v, holders)
            }
            Err(lost) => (lost, None),
        };
        if is_timeout(&v) {
            z.verdict = Verdict::Skipped;
            z.reason = self.timed_out(std::slice::from_ref(&v));
        } else if v["event"] == "lost" {
            z.verdict = Verdict::Skipped;
            z.reason = Some(format!(
                "the reproduction's process failed: {}",
                problem(&v)
            ));
        } else if v["event"] == "error" {
            z.verdict = Verdict::Skipped;
            z.reason = Some(format!(
                "the parent could not initialise CUDA: {}",
                problem(&v)
            ));
        } else {
            let (verdict, evidence) = judge_child(&v, holders.as_ref(), self.timeout);
            z.verdict = verdict;
            if verdict == Verdict::Skipped {
                z.reason = Some(
                    "the child's results are incomplete: it neither failed nor finished".into(),
                );
            }
            z.evidence = evidence;
        }
        z.fixes = vec![
            self.spawn_fix(),
            self.fork_before_init_fix(),
            self.forkserver_fix(),
        ];
        z
    }

    /// The fix row for a group of `ready` (or failed) workers: median time to first allocation,
    /// median MiB NVML shows for each on its GPU, and what went wrong.
    fn group_fix(&self, name: &'static str, lines: &[Value], first: Option<String>) -> Fix {
        let holders = self.by_pid();
        let mut ms = Vec::new();
        let mut mib = Vec::new();
        let mut notes: Vec<String> = first.into_iter().collect();
        let mut problems = Vec::new();
        for v in lines {
            if !is_ready(v) {
                problems.push(problem(v));
                continue;
            }
            ms.push(v["ms"].as_f64().unwrap_or(0.0));
            let dev = v["device"].as_i64().unwrap_or(0) as i32;
            if let Some(h) = &holders {
                match h
                    .get(&pid_of(v))
                    .and_then(|l| l.iter().find(|(o, _)| *o == dev))
                {
                    Some((_, m)) => mib.push(*m),
                    None => {
                        problems.push(format!("NVML does not list pid {} on GPU {dev}", pid_of(v)))
                    }
                }
            }
        }
        let works = ms.len() == lines.len() && !lines.is_empty();
        if let (Some(lo), Some(hi)) = (
            ms.iter().copied().reduce(f64::min),
            ms.iter().copied().reduce(f64::max),
        ) {
            notes.push(format!(
                "{} of {} workers: {lo:.1}–{hi:.1} ms to first allocation",
                ms.len(),
                lines.len()
            ));
        }
        if holders.is_none() {
            notes.push("no NVML: memory not measured".into());
        }
        notes.extend(problems);
        Fix {
            name,
            ms: median(ms),
            mib: median_u64(mib),
            works,
            detail: notes.join("; "),
        }
    }

    fn spawn_fix(&self) -> Fix {
        let args = (0..self.workers)
            .map(|i| {
                vec![
                    format!("device={}", self.device_for(i)),
                    super::T0_NOW.to_string(),
                ]
            })
            .collect();
        self.run_group("alloc", args, |lines| self.group_fix("spawn", lines, None))
            .1
    }

    fn fork_before_init_fix(&self) -> Fix {
        let devices: Vec<String> = (0..self.workers)
            .map(|i| self.device_for(i).to_string())
            .collect();
        self.forked_group(
            "fork-before-init",
            "forker",
            &[format!("devices={}", devices.join(","))],
            |_| Ok(None),
        )
    }

    fn forkserver_fix(&self) -> Fix {
        self.forked_group("forkserver", "forkserver", &[], |server| {
            let start = now_ns();
            let up = server.next(Instant::now() + self.timeout);
            if up["event"] != "up" {
                return Err(problem(&up));
            }
            let up_ms = ms_since(start);
            for i in 0..self.workers {
                server.send(&format!("fork {} {}", self.device_for(i), now_ns()));
            }
            Ok(Some(format!("server up in {up_ms:.1} ms (once)")))
        })
    }

    /// Starts one `role` process that forks the workers (after `setup`, which may add a note),
    /// reads one line per worker from it, builds the fix row while they hold, then releases them.
    fn forked_group(
        &self,
        name: &'static str,
        role: &str,
        args: &[String],
        setup: impl FnOnce(&mut Worker) -> Result<Option<String>, String>,
    ) -> Fix {
        let failed = |detail: String| Fix {
            name,
            ms: None,
            mib: None,
            works: false,
            detail,
        };
        let mut all = args.to_vec();
        all.push(self.hold_arg());
        let mut w = match Worker::start(role, &all) {
            Ok(w) => w,
            Err(lost) => return failed(problem(&lost)),
        };
        let note = match setup(&mut w) {
            Ok(note) => note,
            Err(why) => {
                w.finish(self.deadline());
                return failed(why);
            }
        };
        let deadline = self.deadline();
        // One line per worker; a worker the server reports lost after it answered is skipped.
        let mut lines: Vec<Value> = Vec::new();
        while lines.len() < self.workers {
            let v = w.next(deadline);
            let seen = v["pid"] != 0 && lines.iter().any(|l| l["pid"] == v["pid"]);
            let timed_out = crate::proc::is_timeout(&v);
            if !seen {
                lines.push(v);
            }
            if timed_out {
                lines.resize(self.workers, crate::proc::no_answer(0));
            }
        }
        let fix = self.group_fix(name, &lines, note);
        w.finish(self.deadline());
        fix
    }
}

/// Reads the child's records: reproduced when any driver call failed, the child hung, or it
/// died in a call; not reproduced only when every call was recorded and returned 0; skipped
/// when the records are incomplete.
fn judge_child(v: &Value, holders: Option<&ByPid>, timeout: Duration) -> (Verdict, String) {
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
    let failed = calls.iter().any(|c| c["code"] != 0);
    let all_calls = v["expected_calls"].as_u64().unwrap_or(0) as usize;
    let verdict = if v["hung"] == true {
        let _ = write!(
            e,
            "\n  {} did not return: the child hung and the watchdog killed it after {:.1} s",
            v["hung_in"].as_str().unwrap_or("a call"),
            timeout.as_secs_f64()
        );
        Verdict::Reproduced
    } else if let Some(sig) = v["signal"].as_i64() {
        let _ = write!(
            e,
            "\n  the child died of signal {sig} after {} of {all_calls} calls",
            calls.len()
        );
        Verdict::Reproduced
    } else if failed {
        Verdict::Reproduced
    } else if calls.len() == all_calls && all_calls > 0 {
        let _ = write!(
            e,
            "\n  every call in the child succeeded: this driver supports CUDA after fork"
        );
        Verdict::NotReproduced
    } else {
        let _ = write!(
            e,
            "\n  the child recorded {} of {all_calls} calls and exited",
            calls.len()
        );
        Verdict::Skipped
    };
    if let Some(h) = holders {
        let held = |pid: &Value| {
            held_by(h, pid.as_u64().unwrap_or(0) as u32).unwrap_or_else(|| "nothing".into())
        };
        let _ = write!(
            e,
            "\n  NVML: the parent (pid {parent}) holds {}; the child (pid {child}) holds {}",
            held(parent),
            held(child)
        );
    }
    (verdict, e)
}
