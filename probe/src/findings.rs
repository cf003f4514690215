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
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
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
