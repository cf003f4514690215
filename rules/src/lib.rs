//! gpulint's rules. One file per rule: its code, name, documentation (what `gpulint rule CODE`
//! prints) and check, which reads the analyzer's facts and returns diagnostics.

mod gpu001_fork_after_cuda_init;
mod gpu002_device_pinned_global;
mod gpu003_process_group_before_set_device;
mod gpu999_invalid_input;

use gpulint_analyzer::facts::Facts;
use gpulint_analyzer::source::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// A secondary location that explains a diagnostic.
#[derive(Clone, Debug, PartialEq)]
pub struct Related {
    pub span: Span,
    pub message: String,
}

/// One finding in one file.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub code: &'static str,
    pub name: &'static str,
    pub severity: Severity,
    pub message: String,
    pub span: Span,
    /// The primary label, shown under the primary location.
    pub label: String,
    pub related: Vec<Related>,
    /// How to fix it.
    pub help: String,
}

/// A rule: its identity, docs and check.
pub struct Rule {
    pub code: &'static str,
    pub name: &'static str,
    pub severity: Severity,
    /// One line for `gpulint rules`.
    pub summary: &'static str,
    /// Markdown: what it does, why it is a bug, when it is not, example, fix, references.
    pub docs: &'static str,
    /// `None` for diagnostics the driver emits itself (unreadable or unparsable files).
    pub check: Option<fn(&Facts) -> Vec<Diagnostic>>,
}

/// Every rule, in code order.
pub static RULES: &[&Rule] = &[
    &gpu001_fork_after_cuda_init::RULE,
    &gpu002_device_pinned_global::RULE,
    &gpu003_process_group_before_set_device::RULE,
    &gpu999_invalid_input::RULE,
];

/// The rule with this code (case-insensitive) or name.
pub fn rule(code_or_name: &str) -> Option<&'static Rule> {
    RULES
        .iter()
        .copied()
        .find(|r| r.code.eq_ignore_ascii_case(code_or_name) || r.name == code_or_name)
}

/// Runs every rule over one module's facts.
pub fn check(facts: &Facts) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = RULES
        .iter()
        .filter_map(|r| r.check)
        .flat_map(|c| c(facts))
        .collect();
    out.sort_by_key(|d| (d.span.start, d.code));
    out.dedup_by(|a, b| a.span == b.span && a.code == b.code);
    out
}

pub use gpu999_invalid_input::{invalid_syntax, unreadable_file};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_has_the_documented_sections() {
        for rule in RULES {
            for section in [
                "## What it does",
                "## Why is this bad?",
                "## Example",
                "## References",
            ] {
                assert!(rule.docs.contains(section), "{} lacks {section}", rule.code);
            }
            assert!(
                rule.code.starts_with("GPU") && rule.code.len() == 6,
                "{}",
                rule.code
            );
        }
    }

    #[test]
    fn lookup_by_code_or_name() {
        assert_eq!(rule("gpu001").map(|r| r.name), Some("fork-after-cuda-init"));
        assert_eq!(rule("device-pinned-global").map(|r| r.code), Some("GPU002"));
        assert!(rule("GPU123").is_none());
    }
}
