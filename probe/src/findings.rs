//! `--findings FILE`: the output of `gpulint check --output-format json`, matched to what the
//! probe saw for each rule.

use std::path::Path;

use serde::Deserialize;

use crate::report::{FindingCheck, Hazard, Verdict};

#[derive(Debug, Deserialize)]
pub struct Finding {
    pub code: String,
    pub filename: String,
    pub message: String,
    pub location: Location,
}

#[derive(Debug, Deserialize)]
pub struct Location {
    pub row: u64,
}

pub fn read(path: &Path) -> Result<Vec<Finding>, String> {
    let text = gpulint_core::fsio::read_text(path, 256 << 20)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| {
        format!(
            "{}:{}:{}: not the output of `gpulint check --output-format json`: {}",
            path.display(),
            e.line(),
            e.column(),
            // serde_json ends its message with the position, already given in front.
            e.to_string().split(" at line ").next().unwrap_or_default()
        )
    })
}

/// Matches each finding to its rule's reproduction; `known` tells a rule the probe has (but
/// `--hazard` left out) from one it has no reproduction for.
pub fn check(
    findings: &[Finding],
    hazards: &[Hazard],
    known: impl Fn(&str) -> bool,
) -> Vec<FindingCheck> {
    findings
        .iter()
        .map(|f| {
            let (status, evidence) = match hazards.iter().find(|h| h.rule == f.code) {
                None if known(&f.code) => ("not-probed", "left out by --hazard".to_string()),
                None => (
                    "not-probed",
                    "the probe has no reproduction for this rule".to_string(),
                ),
                Some(h) => match h.verdict {
                    Verdict::Reproduced => ("confirmed", first_lines(&h.evidence)),
                    Verdict::NotReproduced => ("not-confirmed", first_lines(&h.evidence)),
                    Verdict::Skipped => (
                        "not-confirmed",
                        format!("skipped: {}", h.reason.clone().unwrap_or_default()),
                    ),
                },
            };
            FindingCheck {
                code: f.code.clone(),
                filename: f.filename.clone(),
                row: f.location.row,
                message: f.message.clone(),
                status,
                evidence,
            }
        })
        .collect()
}

/// The evidence's first two lines, joined: enough to say what was seen.
fn first_lines(evidence: &str) -> String {
    evidence
        .lines()
        .take(2)
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(code: &str) -> Finding {
        Finding {
            code: code.into(),
            filename: "train.py".into(),
            message: "m".into(),
            location: Location { row: 3 },
        }
    }

    #[test]
    fn each_finding_gets_its_rules_verdict() {
        let mut reproduced = Hazard::new("GPU001", "fork-after-cuda-init");
        reproduced.verdict = Verdict::Reproduced;
        reproduced.evidence = "first line\n  second line\n  third line".into();
        let skipped = Hazard::skipped(
            "GPU003",
            "process-group-before-set-device",
            "needs ≥ 2 GPUs",
        );
        let known = |c: &str| crate::resolve_hazard(c).is_some();
        let out = check(
            &[
                finding("GPU001"),
                finding("GPU003"),
                finding("GPU002"),
                finding("GPU999"),
            ],
            &[reproduced, skipped],
            known,
        );
        let got: Vec<(&str, &str)> = out
            .iter()
            .map(|c| (c.status, c.evidence.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("confirmed", "first line second line"),
                ("not-confirmed", "skipped: needs ≥ 2 GPUs"),
                ("not-probed", "left out by --hazard"),
                ("not-probed", "the probe has no reproduction for this rule"),
            ]
        );
    }

    #[test]
    fn a_bad_file_is_named_with_its_line_once() {
        let dir = std::env::temp_dir().join(format!("gpulint-findings-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f.json");
        std::fs::write(&path, "[\n  {\"code\": 1}]").unwrap();
        let err = read(&path).unwrap_err();
        assert!(err.starts_with(&format!("{}:2:", path.display())), "{err}");
        assert!(!err.contains(" at line "), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
