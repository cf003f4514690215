//! GPU003 process-group-before-set-device: ranks that create their NCCL communicator before
//! choosing their GPU all land on GPU 0.

use std::fmt::Write;

use serde_json::Value;

use super::{median, problem, ByGpu, Lines, Plan};
use crate::report::{Fix, Hazard, Verdict};

const RULE: (&str, &str) = ("GPU003", "process-group-before-set-device");

/// Each rank started here: its rank number and the GPU it binds first (`None`: none).
type Ranks = Vec<(i32, Option<i32>)>;

/// NCCL's refusal of two ranks on one GPU: ncclInvalidUsage (5) with the text of either
/// version ("Duplicate GPU detected", "Multiple Ranks are using the same GPU").
fn is_duplicate_refusal(v: &Value) -> bool {
    let text = v["error"]["last_error"]
        .as_str()
        .unwrap_or_default()
        .to_ascii_lowercase();
    v["event"] == "rank"
        && v["error"]["code"] == 5
        && (text.contains("duplicate gpu") || text.contains("same gpu"))
}

/// What a rank's line says went wrong, or `None` when its communicator was made.
fn rank_problem(v: &Value) -> Option<String> {
    if v["ok"] == true {
        return None;
    }
    if v["event"] != "rank" {
        return Some(problem(v));
    }
    Some(v["error"]["message"].as_str().unwrap_or("?").to_string())
}

impl Plan<'_> {
    /// GPU003 with every rank started here (one per GPU), or, under a launcher, as this one rank.
    pub fn gpu003(&self) -> Hazard {
        if let Some(why) = &self.env.nccl_missing {
            return Hazard::skipped(RULE.0, RULE.1, format!("needs NCCL: {why}"));
        }
        let gpus = self.env.gpu_count();
        let make_ids = || -> Result<String, String> {
            let a = crate::nccl::unique_id().map_err(|e| e.to_string())?;
            let b = crate::nccl::unique_id().map_err(|e| e.to_string())?;
            Ok(format!("{a} {b}"))
        };
        let mut notes = Vec::new();
        let (hazard_ranks, fix_ranks, nranks, ids): (Ranks, Ranks, i32, String) = match &self
            .env
            .host
            .launcher
        {
            Some(l) => {
                if gpus < 2 {
                    // Every rank decides alike from what it sees, so none waits for another.
                    return Hazard::skipped(
                        RULE.0,
                        RULE.1,
                        "this rank sees one GPU (the launcher binds a GPU per rank): ranks cannot share one by default",
                    );
                }
                if l.world_size < 2 {
                    return Hazard::skipped(
                        RULE.0,
                        RULE.1,
                        format!("needs ≥ 2 ranks (WORLD_SIZE is {})", l.world_size),
                    );
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
                let mut fix = vec![(l.rank, Some(l.local_rank % gpus))];
                // Every rank decides alike, from the same variable, so none waits for another.
                if let Some(local) = l.local_world_size.filter(|&n| n > gpus) {
                    notes.push(format!(
                        "set-device-first not run: {local} ranks per host (LOCAL_WORLD_SIZE) share {gpus} GPUs, so ranks would share a GPU whatever the order"
                    ));
                    fix.clear();
                }
                (vec![(l.rank, None)], fix, l.world_size, ids)
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
        let (lines, holders) = self.ranks(hazard_id, &hazard_ranks, nranks);
        let mut z = Hazard::new(RULE.0, RULE.1);
        let (verdict, evidence, reason) = self.judge_ranks(&hazard_ranks, &lines, &holders, nranks);
        z.verdict = verdict;
        z.reason = reason;
        z.evidence = evidence;
        for n in notes {
            let _ = write!(z.evidence, "\n  {n}");
        }
        // The fix runs whatever the verdict: every rank takes part in both steps, so a rank that
        // stopped here would leave the others waiting.
        z.fixes = self
            .set_device_first_fix(fix_id, &fix_ranks, nranks)
            .into_iter()
            .collect();
        z
    }

    /// Reproduced on NCCL's duplicate-GPU refusal, or (ranks started here) every communicator on
    /// GPU 0, or (under a launcher) this rank's on GPU 0 though its local rank is not 0. Positive
    /// evidence counts even when another rank timed out; otherwise a timeout or a failure for
    /// another reason proves nothing.
    fn judge_ranks(
        &self,
        ranks: &Ranks,
        lines: &Lines,
        holders: &ByGpu,
        nranks: i32,
    ) -> (Verdict, String, Option<String>) {
        let launched = self.env.host.launcher.as_ref();
        let mut e =
            format!("{nranks} ranks created their NCCL communicator without choosing a GPU first:");
        let (mut duplicate, mut all_zero, mut elsewhere_on_zero) = (false, true, false);
        let mut failures = Vec::new();
        for (&(r, _), v) in ranks.iter().zip(lines) {
            match rank_problem(v) {
                None => {
                    let dev = v["comm_device"].as_i64().unwrap_or(-1);
                    all_zero &= dev == 0;
                    elsewhere_on_zero |= dev == 0 && launched.is_some_and(|l| l.local_rank != 0);
                    let _ = write!(
                        e,
                        "\n  rank {r} (pid {}): communicator on GPU {dev}",
                        v["pid"]
                    );
                }
                Some(p) => {
                    all_zero = false;
                    if is_duplicate_refusal(v) {
                        duplicate = true;
                    } else {
                        failures.push(format!("rank {r}: {p}"));
                    }
                    let _ = write!(e, "\n  rank {r} (pid {}): {p}", v["pid"]);
                }
            }
        }
        let ours: Vec<u32> = lines
            .iter()
            .filter_map(|v| v["pid"].as_u64())
            .map(|p| p as u32)
            .filter(|&p| p != 0)
            .collect();
        if let (Some(zero), false) = (holders.get(&0), ours.is_empty()) {
            let on_zero = zero.iter().filter(|(p, _)| ours.contains(p)).count();
            let _ = write!(
                e,
                "\n  NVML: GPU 0 holds {on_zero} of the {} rank processes started here",
                ours.len()
            );
        }
        let local = launched.is_none();
        if local && all_zero {
            let _ = write!(e, "\n  every rank's communicator is on GPU 0");
        }
        if duplicate || (local && all_zero) || elsewhere_on_zero {
            return (Verdict::Reproduced, e, None);
        }
        if let Some(why) = self.timed_out(lines) {
            return (Verdict::Skipped, e, Some(why));
        }
        if !failures.is_empty() {
            return (
                Verdict::Skipped,
                e,
                Some(format!("the reproduction failed: {}", failures.join("; "))),
            );
        }
        (Verdict::NotReproduced, e, None)
    }

    /// Starts one rank process for each `(rank, device)` on the NCCL id `id`; returns their lines
    /// and NVML's holders by ordinal, read while they wait.
    fn ranks(&self, id: &str, ranks: &Ranks, nranks: i32) -> (Lines, ByGpu) {
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
        self.run_group("nccl-rank", args, |_| {
            self.env.holders().unwrap_or_default()
        })
    }

    /// Binds each rank's GPU first, then creates the communicator and all-reduces. `None` when
    /// no rank is to run it here.
    fn set_device_first_fix(&self, id: &str, ranks: &Ranks, nranks: i32) -> Option<Fix> {
        if ranks.is_empty() {
            return None;
        }
        let (lines, _) = self.ranks(id, ranks, nranks);
        let mut ms = Vec::new();
        let mut problems = Vec::new();
        let mut reduce = Vec::new();
        for (&(r, device), v) in ranks.iter().zip(&lines) {
            if let Some(p) = rank_problem(v) {
                problems.push(format!("rank {r}: {p}"));
                continue;
            }
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
            let all = ar["ms"].as_f64().unwrap_or(0.0);
            ms.push(v["init_ms"].as_f64().unwrap_or(0.0) + all);
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
        Some(Fix {
            name: "set-device-first",
            ms: median(ms),
            mib: None,
            works,
            detail,
        })
    }
}
