//! What the probe found, as one serialisable report, and its human rendering.

use serde::Serialize;

#[derive(Debug, Serialize)]
pub struct Report {
    pub status: &'static str,
    pub host: Host,
    pub hazards: Vec<Hazard>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<FindingCheck>,
    /// Whether `--findings` was given (so an empty list can be said to be empty).
    #[serde(skip)]
    pub findings_given: bool,
}

#[derive(Debug, Serialize)]
pub struct Host {
    /// The driver's version as NVML gives it, e.g. "570.86.15".
    pub driver: Option<String>,
    /// The CUDA version the driver supports, from `cuDriverGetVersion`, e.g. "12.8".
    pub cuda: String,
    /// The same as NVML reports it (`nvmlSystemGetCudaDriverVersion_v2`).
    pub nvml_cuda: Option<String>,
    pub nccl: Option<String>,
    /// Why NVML or NCCL could not be used, when they could not.
    pub missing: Vec<String>,
    pub libraries: Libraries,
    /// True when any library loaded is one of gpulint's test doubles, not NVIDIA's.
    pub test_doubles: bool,
    pub gpus: Vec<Gpu>,
    /// RANK/LOCAL_RANK/WORLD_SIZE when a launcher started this process.
    pub launcher: Option<Launcher>,
}

#[derive(Debug, Serialize)]
pub struct Libraries {
    pub cuda: Option<String>,
    pub nvml: Option<String>,
    pub nccl: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Gpu {
    /// The CUDA ordinal (what `cuda:N` means in this process).
    pub ordinal: i32,
    /// The NVML index of the same GPU, matched by UUID; they differ under `CUDA_VISIBLE_DEVICES`
    /// or when CUDA orders GPUs fastest first.
    pub nvml_index: Option<u32>,
    pub name: String,
    pub uuid: String,
    pub memory_mib: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Launcher {
    pub rank: i32,
    pub local_rank: i32,
    pub world_size: i32,
    /// Ranks per host (`LOCAL_WORLD_SIZE`, `SLURM_NTASKS_PER_NODE`), when the launcher says.
    pub local_world_size: Option<i32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Reproduced,
    NotReproduced,
    Skipped,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Reproduced => "reproduced",
            Verdict::NotReproduced => "not-reproduced",
            Verdict::Skipped => "skipped",
        }
    }
}

#[derive(Debug, Serialize)]
pub struct Hazard {
    pub rule: &'static str,
    pub hazard: &'static str,
    pub verdict: Verdict,
    /// Why it was skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// What was seen: error codes and texts, which pid held what on which GPU.
    pub evidence: String,
    pub fixes: Vec<Fix>,
}

impl Hazard {
    /// A hazard not (yet) reproduced, with no evidence or fixes so far.
    pub fn new(rule: &'static str, hazard: &'static str) -> Hazard {
        Hazard {
            rule,
            hazard,
            verdict: Verdict::NotReproduced,
            reason: None,
            evidence: String::new(),
            fixes: Vec::new(),
        }
    }

    pub fn skipped(rule: &'static str, hazard: &'static str, reason: impl Into<String>) -> Hazard {
        Hazard {
            verdict: Verdict::Skipped,
            reason: Some(reason.into()),
            ..Hazard::new(rule, hazard)
        }
    }
}

#[derive(Debug, Serialize)]
pub struct Fix {
    pub name: &'static str,
    /// Median milliseconds per worker (or rank) to the measured point.
    pub ms: Option<f64>,
    /// Median MiB each worker held on its GPU, from NVML.
    pub mib: Option<u64>,
    pub works: bool,
    pub detail: String,
}

/// One finding from `gpulint check --output-format json`, and what the probe saw for its rule.
#[derive(Debug, Serialize)]
pub struct FindingCheck {
    pub code: String,
    pub filename: String,
    pub row: u64,
    pub message: String,
    /// "confirmed", "not-confirmed", or "not-probed" (a rule the probe has no reproduction for).
    pub status: &'static str,
    pub evidence: String,
}

fn opt<T: std::fmt::Display>(v: &Option<T>) -> String {
    v.as_ref()
        .map_or_else(|| "—".to_string(), |x| x.to_string())
}

/// The human report: the host, then a block per hazard with its fixes as a table.
pub fn render(r: &Report) -> String {
    let mut s = String::new();
    render_host(&mut s, &r.host);
    for z in &r.hazards {
        render_hazard(&mut s, z);
    }
    render_findings(&mut s, r);
    s
}

/// The host block: versions, library paths, what is missing, the launcher, and a line per GPU.
fn render_host(s: &mut String, h: &Host) {
    use std::fmt::Write;
    let _ = writeln!(s, "Host");
    let nvml_cuda = match &h.nvml_cuda {
        Some(v) if *v != h.cuda => format!(" (NVML says {v})"),
        _ => String::new(),
    };
    let _ = writeln!(
        s,
        "  driver {} · CUDA {}{nvml_cuda} · NCCL {}",
        opt(&h.driver),
        h.cuda,
        h.nccl.as_deref().unwrap_or("not found")
    );
    for (what, p) in [
        ("libcuda", &h.libraries.cuda),
        ("NVML", &h.libraries.nvml),
        ("NCCL", &h.libraries.nccl),
    ] {
        if let Some(p) = p {
            let _ = writeln!(s, "  {what:<8} {p}");
        }
    }
    if h.test_doubles {
        let _ = writeln!(
            s,
            "  NOTE: these are gpulint's test doubles, not NVIDIA's libraries"
        );
    }
    for m in &h.missing {
        let _ = writeln!(s, "  missing: {m}");
    }
    if let Some(l) = &h.launcher {
        let _ = writeln!(
            s,
            "  launcher: rank {} of {} (local rank {})",
            l.rank, l.world_size, l.local_rank
        );
    }
    let _ = writeln!(
        s,
        "  {:<5} {:<5} {:<44} {:>10}  uuid",
        "cuda", "nvml", "name", "memory"
    );
    for g in &h.gpus {
        let _ = writeln!(
            s,
            "  {:<5} {:<5} {:<44} {:>6} MiB  {}",
            g.ordinal,
            opt(&g.nvml_index),
            g.name,
            g.memory_mib,
            g.uuid
        );
    }
}

/// A hazard's block: its verdict, reason and evidence, and its fixes as a table.
fn render_hazard(s: &mut String, z: &Hazard) {
    use std::fmt::Write;
    let _ = writeln!(s, "\n{} {}: {}", z.rule, z.hazard, z.verdict.as_str());
    if let Some(reason) = &z.reason {
        let _ = writeln!(s, "  reason: {reason}");
    }
    for line in z.evidence.lines() {
        let _ = writeln!(s, "  {line}");
    }
    if !z.fixes.is_empty() {
        let _ = writeln!(
            s,
            "  {:<20} {:>12} {:>10}  {:<5}  detail",
            "fix", "ms/worker", "MiB/worker", "works"
        );
        for f in &z.fixes {
            let ms = f.ms.map_or("—".to_string(), |m| format!("{m:.1}"));
            let _ = writeln!(
                s,
                "  {:<20} {:>12} {:>10}  {:<5}  {}",
                f.name,
                ms,
                opt(&f.mib),
                if f.works { "yes" } else { "no" },
                f.detail
            );
        }
    }
}

/// The findings given with `--findings`, each confirmed, not confirmed, or not probed here.
fn render_findings(s: &mut String, r: &Report) {
    use std::fmt::Write;
    if r.findings_given && r.findings.is_empty() {
        let _ = writeln!(s, "\nFindings: none in the file");
    }
    if !r.findings.is_empty() {
        let _ = writeln!(s, "\nFindings");
        for f in &r.findings {
            let _ = writeln!(s, "  {}:{} {} {}", f.filename, f.row, f.code, f.message);
            let status = match f.status {
                "confirmed" => "confirmed on this host",
                "not-confirmed" => "not confirmed on this host",
                _ => "not probed",
            };
            let _ = writeln!(s, "    {status}: {}", f.evidence);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host() -> Host {
        Host {
            driver: Some("570.86.15".into()),
            cuda: "12.8".into(),
            nvml_cuda: Some("12.8".into()),
            nccl: None,
            missing: vec!["NCCL: libnccl.so not found".into()],
            libraries: Libraries {
                cuda: Some("/lib/libcuda.so.1".into()),
                nvml: None,
                nccl: None,
            },
            test_doubles: false,
            gpus: vec![Gpu {
                ordinal: 0,
                nvml_index: Some(1),
                name: "H100".into(),
                uuid: "GPU-x".into(),
                memory_mib: 81559,
            }],
            launcher: None,
        }
    }

    #[test]
    fn the_text_report_has_the_host_each_verdict_and_the_fix_table() {
        let mut z = Hazard::new("GPU001", "fork-after-cuda-init");
        z.verdict = Verdict::Reproduced;
        z.evidence = "line one\n  line two".into();
        z.fixes = vec![Fix {
            name: "spawn",
            ms: Some(412.04),
            mib: Some(517),
            works: true,
            detail: "d".into(),
        }];
        let r = Report {
            status: "ok",
            host: host(),
            hazards: vec![z, Hazard::skipped("GPU003", "x", "needs NCCL")],
            findings: vec![],
            findings_given: true,
        };
        let text = render(&r);
        for want in [
            "driver 570.86.15 · CUDA 12.8 · NCCL not found",
            "missing: NCCL: libnccl.so not found",
            "  0     1     H100",
            "GPU001 fork-after-cuda-init: reproduced\n  line one\n    line two",
            "  spawn                       412.0        517  yes    d",
            "GPU003 x: skipped\n  reason: needs NCCL",
            "Findings: none in the file",
        ] {
            assert!(text.contains(want), "{want:?} missing from:\n{text}");
        }
        assert!(!text.contains("test doubles"));
    }

    #[test]
    fn json_uses_kebab_case_verdicts_and_leaves_out_what_is_absent() {
        let z = Hazard::new("GPU002", "device-pinned-global");
        let v = serde_json::to_value(&z).unwrap();
        assert_eq!(v["verdict"], "not-reproduced");
        assert!(v.get("reason").is_none());
        let r = Report {
            status: "ok",
            host: host(),
            hazards: vec![],
            findings: vec![],
            findings_given: false,
        };
        let v = serde_json::to_value(&r).unwrap();
        assert!(v.get("findings").is_none() && v.get("findings_given").is_none());
    }
}
