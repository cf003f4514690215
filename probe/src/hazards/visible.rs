//! GPU007 cuda-visible-devices-after-init: `CUDA_VISIBLE_DEVICES` written after the driver started is
//! ignored; the driver reads it once, at `cuInit`.

use serde_json::Value;

use super::{problem, Plan};
use crate::proc::Worker;
use crate::report::{Fix, Hazard, Verdict};

const RULE: (&str, &str) = ("GPU007", "cuda-visible-devices-after-init");

impl Plan<'_> {
    pub fn gpu007(&self) -> Hazard {
        let gpus = self.env.gpu_count();
        if gpus < 2 {
            return Hazard::skipped(
                RULE.0,
                RULE.1,
                "needs ≥ 2 visible GPUs: with one, hiding the others changes nothing",
            );
        }
        // Narrow to the first GPU this process was given, not to physical GPU 0.
        let inherited = std::env::var("CUDA_VISIBLE_DEVICES").unwrap_or_default();
        let value = inherited
            .split(',')
            .map(str::trim)
            .find(|s| !s.is_empty())
            .unwrap_or("0")
            .to_string();
        let run = |late: bool| -> Value {
            let args = [format!("value={value}"), format!("late={}", u8::from(late))];
            match Worker::start("visible-devices", &args) {
                Ok(mut w) => {
                    let v = w.next(self.deadline());
                    w.finish(self.deadline());
                    v
                }
                Err(lost) => lost,
            }
        };
        let mut z = Hazard::new(RULE.0, RULE.1);
        let v = run(true);
        if let Some(why) = self.timed_out(std::slice::from_ref(&v)) {
            return Hazard::skipped(RULE.0, RULE.1, why);
        }
        if v["event"] == "visible" {
            let (before, after) = (&v["before"], &v["after"]);
            z.evidence = format!(
                "pid {} called cuInit and saw {before} GPUs, then set CUDA_VISIBLE_DEVICES={value}: the driver still shows {after}",
                v["pid"]
            );
            if after == before && v["after"].as_i64() != Some(1) {
                z.verdict = Verdict::Reproduced;
            }
        } else {
            z.verdict = Verdict::Skipped;
            z.reason = Some(format!("the reproduction failed: {}", problem(&v)));
        }
        let v = run(false);
        let fix = if v["event"] == "visible" {
            Fix {
                name: "set-before-init",
                ms: v["ms"].as_f64(),
                mib: None,
                works: v["after"].as_i64() == Some(1),
                detail: format!(
                    "CUDA_VISIBLE_DEVICES={value} set before cuInit: the driver shows {} GPU(s); ms is cuInit and the count",
                    v["after"]
                ),
            }
        } else {
            Fix {
                name: "set-before-init",
                ms: None,
                mib: None,
                works: false,
                detail: problem(&v),
            }
        };
        z.fixes = vec![fix];
        z
    }
}
