//! GPU002 device-pinned-global: workers that load the model on a fixed GPU before choosing their
//! own all pile onto that GPU, and their own GPU's tensors do not match the model.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::{
    error_code, held_by, is_ready, median, median_u64, pid_of, problem, ByPid, Lines, Plan,
};
use crate::report::{Fix, Hazard, Verdict};

const RULE: (&str, &str) = ("GPU002", "device-pinned-global");
/// CUDA_ERROR_OUT_OF_MEMORY: the pile-up's worst outcome.
const OUT_OF_MEMORY: i64 = 2;

impl Plan<'_> {
    pub fn gpu002(&self) -> Hazard {
        if let Some(why) = self.gpu002_unsupported() {
            return Hazard::skipped(RULE.0, RULE.1, why);
        }
        let n = self.workers;
        let gpus = self.env.gpu_count();
        let (lines, holders) = self.model_group(|_| 0);
        if let Some(why) = self.timed_out(&lines) {
            return Hazard::skipped(RULE.0, RULE.1, why);
        }
        if let Some(why) = self.nvml_blind(&lines, &holders) {
            return Hazard::skipped(RULE.0, RULE.1, why);
        }
        let mut e = format!(
            "{n} spawned workers each loaded a 256 MiB model on GPU 0 before choosing GPU (worker % {gpus}); NVML:"
        );
        let (mut on_zero, mut mismatched, mut pile_mib, mut oom) = (0, 0, 0, 0);
        let mut failed = Vec::new();
        for v in &lines {
            if !is_ready(v) {
                // Running out of memory on GPU 0 while getting there (its context, the model) is
                // the pile-up itself; on the worker's own GPU it is something else.
                let model_oom =
                    v["step"] != "own" && v["device"] == 0 && error_code(v) == Some(OUT_OF_MEMORY);
                if model_oom {
                    oom += 1;
                } else {
                    failed.push(problem(v));
                }
                let _ = write!(e, "\n  pid {}: {}", pid_of(v), problem(v));
                continue;
            }
            let own = v["own"].as_i64().unwrap_or(0) as i32;
            let held = holders.get(&pid_of(v)).cloned().unwrap_or_default();
            let zero = held.iter().find(|(o, _)| *o == 0).map(|(_, m)| *m);
            if let Some(m) = zero {
                on_zero += 1;
                pile_mib += m;
                mismatched += usize::from(own != 0);
            }
            let spots = held_by(&holders, pid_of(v)).unwrap_or_else(|| "not listed".into());
            let _ = write!(e, "\n  pid {} (chose GPU {own}): {spots}", pid_of(v));
        }
        let _ = write!(
            e,
            "\n  GPU 0 holds {on_zero} of {n} workers, {pile_mib} MiB in all"
        );
        if oom > 0 {
            let _ = write!(
                e,
                "\n  GPU 0 ran out of memory: {oom} of {n} workers failed with CUDA_ERROR_OUT_OF_MEMORY there"
            );
        }
        let mut z = Hazard::new(RULE.0, RULE.1);
        if gpus < 2 {
            // Correct code on one GPU also puts every worker there: nothing to tell apart.
            z.verdict = Verdict::Skipped;
            z.reason = Some(
                "needs ≥ 2 GPUs for the device mismatch and the fix: with one, every worker belongs on GPU 0 (the pile-up is in the evidence)"
                    .into(),
            );
            z.evidence = e;
            return z;
        }
        let _ = write!(
            e,
            "\n  {mismatched} {} chose another GPU still {} the model on GPU 0: tensors on {} own GPU will not match it",
            if mismatched == 1 { "worker that" } else { "workers that" },
            if mismatched == 1 { "holds" } else { "hold" },
            if mismatched == 1 { "its" } else { "their" },
        );
        let piled = on_zero + oom == n;
        if oom > 0 || (piled && mismatched > 0) {
            z.verdict = Verdict::Reproduced;
        } else if !failed.is_empty() {
            z.verdict = Verdict::Skipped;
            z.reason = Some(format!("the reproduction failed: {}", failed.join("; ")));
        }
        z.evidence = e;
        z.fixes = vec![self.device_first_fix()];
        z
    }

    /// Why this host cannot show GPU002, if it cannot: it needs NVML, two workers, and GPU 0 known
    /// to NVML.
    fn gpu002_unsupported(&self) -> Option<&'static str> {
        if self.env.nvml.is_none() {
            return Some("needs NVML to see which process holds memory on which GPU");
        }
        if self.workers < 2 {
            return Some("needs ≥ 2 workers (--workers)");
        }
        if self
            .env
            .host
            .gpus
            .first()
            .is_some_and(|g| g.nvml_index.is_none())
        {
            return Some(
                "NVML does not know GPU 0: its UUID matched no NVML device (a MIG instance?)",
            );
        }
        None
    }

    /// Why NVML's view cannot be used: it lists none of the workers that did start.
    fn nvml_blind(&self, lines: &Lines, holders: &ByPid) -> Option<String> {
        let ours: Vec<u32> = lines.iter().filter(|v| is_ready(v)).map(pid_of).collect();
        if ours.is_empty() || ours.iter().any(|p| holders.contains_key(p)) {
            return None;
        }
        Some(match self.env.process_query_error() {
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
        })
    }

    /// Starts the model workers (model on `load(i)`, then GPU `i % gpus`), waits for each, and
    /// snapshots NVML while they hold their memory.
    fn model_group(&self, load: impl Fn(usize) -> i32) -> (Lines, ByPid) {
        let args = (0..self.workers)
            .map(|i| {
                vec![
                    format!("load={}", load(i)),
                    format!("own={}", self.device_for(i)),
                    "mib=256".into(),
                    super::T0_NOW.to_string(),
                ]
            })
            .collect();
        self.run_group("model", args, |_| self.by_pid().unwrap_or_default())
    }

    fn device_first_fix(&self) -> Fix {
        let (lines, holders) = self.model_group(|i| self.device_for(i));
        let mut ms = Vec::new();
        let mut mib = Vec::new();
        let mut problems = Vec::new();
        let mut spread: BTreeMap<i32, usize> = BTreeMap::new();
        for v in &lines {
            if !is_ready(v) {
                problems.push(problem(v));
                continue;
            }
            let own = v["own"].as_i64().unwrap_or(0) as i32;
            let held = holders.get(&pid_of(v)).cloned().unwrap_or_default();
            match held.as_slice() {
                [(o, m)] if *o == own => {
                    ms.push(v["ms"].as_f64().unwrap_or(0.0));
                    mib.push(*m);
                    *spread.entry(own).or_default() += 1;
                }
                _ => problems.push(format!(
                    "pid {} chose GPU {own} but NVML lists it on {held:?}",
                    pid_of(v)
                )),
            }
        }
        let works = problems.is_empty() && ms.len() == lines.len();
        let per_gpu: Vec<String> = spread
            .iter()
            .map(|(g, c)| format!("GPU {g}: {c}"))
            .collect();
        let mut notes = vec![format!(
            "each worker only on its own GPU per NVML ({})",
            per_gpu.join(", ")
        )];
        if !works {
            notes = problems;
        }
        Fix {
            name: "device-first",
            ms: median(ms),
            mib: median_u64(mib),
            works,
            detail: notes.join("; "),
        }
    }
}
