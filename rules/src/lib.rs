//! gpulint's rules. One file per rule: its code, name, documentation (what `gpulint rule CODE`
//! prints) and check, which reads the analyses' facts and renders diagnostics. Rules decide nothing
//! about programs; they word what the analyses found, and build fixes.

pub mod fix;
mod gpu001_fork_after_cuda_init;
mod gpu002_device_pinned_global;
mod gpu003_process_group_before_set_device;
mod gpu004_spawn_without_main_guard;
mod gpu005_start_method_already_fixed;
mod gpu006_unpicklable_spawn_callable;
mod gpu007_cuda_visible_devices_after_init;
mod gpu008_global_rank_as_device;
mod gpu009_load_without_map_location_per_rank;
mod gpu010_implicit_device_in_worker;
mod gpu011_cuda_tensor_across_processes;
mod gpu012_start_method_wrong_layer;
mod gpu013_spawn_reads_parent_mutated_global;
mod gpu014_fork_after_threadpool;
mod gpu015_set_device_after_process_group;
mod gpu101_rust_fork_after_cuda_init;
mod gpu102_rust_static_cuda_context;
mod gpu103_rust_rank_as_device_ordinal;
mod gpu900_unused_noqa;
mod gpu999_invalid_input;
#[cfg(test)]
mod testing;

use gpulint_analyses::Facts;
pub use gpulint_core::diagnostic::{
    Applicability, Diagnostic, Edit, Fix, Related, Severity, Sources,
};

/// A rule's check: facts in, findings (with fixes, built from the sources) out.
pub type Check = fn(&Facts, &dyn Sources) -> Vec<Diagnostic>;

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
    pub check: Option<Check>,
    /// Rules whose finding at the same place supersedes this one's: the same fact, judged more
    /// severely when another main program reached it (GPU015's order-only group is GPU003's error
    /// when some caller uses the GPU before binding it).
    pub replaced_by: &'static [&'static str],
    /// The source language whose facts it reads; `None` for the driver's own diagnostics.
    pub language: Option<Language>,
    /// Whether its findings carry a fix.
    pub fix: FixAvailability,
}

/// Whether a rule's findings carry a fix: `gpulint rule CODE` says so as ruff does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FixAvailability {
    /// No finding of the rule has a mechanical fix.
    None,
    /// Findings carry a fix where the edit is mechanical (each rule's docs say when).
    Sometimes,
}

impl FixAvailability {
    /// The line `gpulint rule CODE` prints, if any.
    pub fn sentence(self) -> Option<&'static str> {
        match self {
            FixAvailability::None => None,
            FixAvailability::Sometimes => Some("Fix is sometimes available."),
        }
    }
}

/// Which frontend produced a set of facts: each rule words findings for one language's code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    Python,
    Rust,
}

/// Every rule, in code order.
pub static RULES: &[&Rule] = &[
    &gpu001_fork_after_cuda_init::RULE,
    &gpu002_device_pinned_global::RULE,
    &gpu003_process_group_before_set_device::RULE,
    &gpu004_spawn_without_main_guard::RULE,
    &gpu005_start_method_already_fixed::RULE,
    &gpu006_unpicklable_spawn_callable::RULE,
    &gpu007_cuda_visible_devices_after_init::RULE,
    &gpu008_global_rank_as_device::RULE,
    &gpu009_load_without_map_location_per_rank::RULE,
    &gpu010_implicit_device_in_worker::RULE,
    &gpu011_cuda_tensor_across_processes::RULE,
    &gpu012_start_method_wrong_layer::RULE,
    &gpu013_spawn_reads_parent_mutated_global::RULE,
    &gpu014_fork_after_threadpool::RULE,
    &gpu015_set_device_after_process_group::RULE,
    &gpu101_rust_fork_after_cuda_init::RULE,
    &gpu102_rust_static_cuda_context::RULE,
    &gpu103_rust_rank_as_device_ordinal::RULE,
    &gpu900_unused_noqa::RULE,
    &gpu999_invalid_input::RULE,
];

/// The rule with this code (case-insensitive) or name.
pub fn rule(code_or_name: &str) -> Option<&'static Rule> {
    RULES
        .iter()
        .copied()
        .find(|r| r.code.eq_ignore_ascii_case(code_or_name) || r.name == code_or_name)
}

/// Drops each finding that another finding at the same place supersedes (`Rule::replaced_by`).
pub fn drop_replaced(diagnostics: &mut Vec<Diagnostic>) {
    let replaced: Vec<bool> = diagnostics
        .iter()
        .map(|d| {
            rule(d.code).is_some_and(|r| {
                diagnostics
                    .iter()
                    .any(|o| o.span == d.span && r.replaced_by.contains(&o.code))
            })
        })
        .collect();
    let mut keep = replaced.into_iter().map(|r| !r);
    diagnostics.retain(|_| keep.next().unwrap_or(true));
}

/// Runs the rules of `language` over one analysis's facts; `sources` lets rules build fixes.
pub fn check(facts: &Facts, sources: &dyn Sources, language: Language) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = RULES
        .iter()
        .filter(|r| r.language == Some(language))
        .filter_map(|r| r.check)
        .flat_map(|c| c(facts, sources))
        .collect();
    out.sort_by_key(|d| (d.span.start, d.code));
    out.dedup_by(|a, b| a.span == b.span && a.code == b.code);
    out
}

pub use gpu900_unused_noqa::unused_noqa;
pub use gpu999_invalid_input::{invalid_syntax, unreadable_file};

/// The rule reference in Markdown: an index, then each rule's documentation (`docs/rules.md`).
pub fn markdown_reference() -> String {
    let mut out = String::from(
        "# gpulint rules\n\nGenerated by `gpulint rules --output-format markdown`; a test keeps it fresh.\n\n",
    );
    out.push_str("| code | name | default severity | summary |\n|---|---|---|---|\n");
    for r in RULES {
        out.push_str(&format!(
            "| [{}](#{}) | {} | {} | {} |\n",
            r.code,
            r.code.to_ascii_lowercase(),
            r.name,
            r.severity.as_str(),
            r.summary
        ));
    }
    for r in RULES {
        // Rule docs use `##` sections; nest them under the rule's own heading.
        let docs = r.docs.trim_end().replace("\n## ", "\n### ");
        let docs = docs
            .strip_prefix("## ")
            .map_or(docs.clone(), |d| format!("### {d}"));
        let fix = r
            .fix
            .sentence()
            .map_or(String::new(), |s| format!("{s}\n\n"));
        out.push_str(&format!(
            "\n## {}\n\n`{}` · default severity: {}\n\n{fix}{}\n",
            r.code,
            r.name,
            r.severity.as_str(),
            docs
        ));
    }
    out
}

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
    fn an_order_only_note_gives_way_to_the_error_at_the_same_place() {
        use gpulint_core::source::{FileId, Span};
        let at = |start: u32| Span::new(FileId(0), start, start + 5);
        let finding = |code: &'static str, span: Span| Diagnostic {
            code,
            name: "",
            severity: Severity::Info,
            message: String::new(),
            span,
            label: String::new(),
            related: Vec::new(),
            help: String::new(),
            fix: None,
        };
        let mut found = vec![
            finding("GPU015", at(0)),
            finding("GPU003", at(0)),
            finding("GPU015", at(10)),
            finding("GPU001", at(20)),
        ];
        drop_replaced(&mut found);
        let left: Vec<_> = found.iter().map(|d| (d.code, d.span.start)).collect();
        assert_eq!(left, [("GPU003", 0), ("GPU015", 10), ("GPU001", 20)]);
    }

    #[test]
    fn lookup_by_code_or_name() {
        assert_eq!(rule("gpu001").map(|r| r.name), Some("fork-after-cuda-init"));
        assert_eq!(rule("device-pinned-global").map(|r| r.code), Some("GPU002"));
        assert!(rule("GPU123").is_none());
    }
}
