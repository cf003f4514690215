//! The reproductions: each hazard run as it happens in user code, then each fix, timed. One file
//! per hazard; this one holds what they share.

mod fork;
mod nccl;
mod pinned;
mod visible;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::host::Env;
use crate::proc::{is_timeout, Worker};

pub struct Plan<'a> {
    pub env: &'a Env,
    pub workers: usize,
    pub timeout: Duration,
}

/// Per pid: the (CUDA ordinal, MiB) pairs where NVML lists it.
type ByPid = BTreeMap<u32, Vec<(i32, u64)>>;
/// Per CUDA ordinal: the (pid, MiB) pairs NVML lists there.
type ByGpu = BTreeMap<i32, Vec<(u32, u64)>>;
/// One JSON line per worker: its answer, or a `lost` line saying why there is none.
type Lines = Vec<Value>;

/// An argument `run_group` replaces with the moment it starts that worker.
const T0_NOW: &str = "t0=now";

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

fn is_ready(v: &Value) -> bool {
    v["event"] == "ready"
}

fn pid_of(v: &Value) -> u32 {
    v["pid"].as_u64().unwrap_or(0) as u32
}

/// What went wrong for a worker that did not answer `ready`: a driver error or why it was lost.
fn problem(v: &Value) -> String {
    if v["event"] == "lost" {
        return v["why"].as_str().unwrap_or("lost").to_string();
    }
    let e = &v["error"];
    format!(
        "{} → {} {} \"{}\"",
        e["call"].as_str().unwrap_or("?"),
        e["code"],
        e["name"].as_str().unwrap_or(""),
        e["text"].as_str().unwrap_or("")
    )
    .replace("  \"", " \"")
}

/// What NVML shows `pid` holding ("757 MiB on GPU 0, 501 MiB on GPU 1"), `None` when nothing.
fn held_by(holders: &ByPid, pid: u32) -> Option<String> {
    let spots: Vec<String> = holders
        .get(&pid)?
        .iter()
        .map(|(o, m)| format!("{m} MiB on GPU {o}"))
        .collect();
    (!spots.is_empty()).then(|| spots.join(", "))
}

/// The CUDA error code a worker reported, if it reported one.
fn error_code(v: &Value) -> Option<i64> {
    v["error"]["code"].as_i64()
}

impl Plan<'_> {
    fn deadline(&self) -> Instant {
        Instant::now() + self.timeout
    }

    /// The `hold=` argument: how long a worker waits to be released before it lets go by itself.
    fn hold_arg(&self) -> String {
        format!("hold={}", self.timeout.as_millis() * 3)
    }

    fn device_for(&self, i: usize) -> i32 {
        i as i32 % self.env.gpu_count().max(1)
    }

    /// Why a step proves nothing: some worker gave no answer within the timeout.
    fn timed_out(&self, lines: &[Value]) -> Option<String> {
        let n = lines.iter().filter(|v| is_timeout(v)).count();
        (n > 0).then(|| {
            format!(
                "inconclusive: {n} of {} processes gave no answer within {:.1} s (a longer --timeout may help)",
                lines.len(),
                self.timeout.as_secs_f64()
            )
        })
    }

    /// Starts one `role` worker per argument list, reads one line from each (all within one
    /// timeout), runs `while_held` while they still hold their GPU memory (an NVML snapshot),
    /// then releases them and waits for them, again within one timeout.
    fn run_group<T>(
        &self,
        role: &str,
        args: Vec<Vec<String>>,
        while_held: impl FnOnce(&Lines) -> T,
    ) -> (Lines, T) {
        let mut workers: Vec<_> = args
            .into_iter()
            .map(|mut a| {
                a.push(self.hold_arg());
                // Each worker's clock starts when it is asked for, as a pool asks for them.
                for arg in a.iter_mut().filter(|arg| *arg == T0_NOW) {
                    *arg = format!("t0={}", crate::proc::now_ns());
                }
                Worker::start(role, &a)
            })
            .collect();
        let deadline = self.deadline();
        let lines: Lines = workers
            .iter_mut()
            .map(|w| match w {
                Ok(w) => w.next(deadline),
                Err(lost) => lost.clone(),
            })
            .collect();
        let held = while_held(&lines);
        for w in workers.iter_mut().flatten() {
            w.release();
        }
        let end = self.deadline();
        for w in workers.into_iter().flatten() {
            w.finish(end);
        }
        (lines, held)
    }

    /// NVML's holders by pid, or `None` without NVML.
    fn by_pid(&self) -> Option<ByPid> {
        let mut out = ByPid::new();
        for (ordinal, procs) in self.env.holders()? {
            for (pid, mib) in procs {
                out.entry(pid).or_default().push((ordinal, mib));
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn medians_take_the_middle_or_the_upper_middle() {
        assert_eq!(median(vec![]), None);
        assert_eq!(median(vec![3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(vec![4.0, 1.0]), Some(4.0));
        assert_eq!(median_u64(vec![500, 501, 757]), Some(501));
    }

    #[test]
    fn problems_name_the_call_or_why_the_worker_was_lost() {
        let err = json!({"event": "error", "error": {"call": "cuMemAlloc", "code": 2, "name": "CUDA_ERROR_OUT_OF_MEMORY", "text": "out of memory"}});
        assert_eq!(
            problem(&err),
            "cuMemAlloc → 2 CUDA_ERROR_OUT_OF_MEMORY \"out of memory\""
        );
        assert_eq!(error_code(&err), Some(2));
        let lost = crate::proc::lost(7, false, "the worker died of signal 6 (SIGABRT)".into());
        assert_eq!(problem(&lost), "the worker died of signal 6 (SIGABRT)");
        assert_eq!(error_code(&lost), None);
        assert!(!is_ready(&lost) && !crate::proc::is_timeout(&lost));
        assert!(crate::proc::is_timeout(&crate::proc::no_answer(7)));
    }
}
