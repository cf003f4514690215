//! Fixes end to end. Every corpus case with a fixable finding is copied, fixed with `--fix
//! --unsafe-fixes` and checked again: a rule whose findings there all carried a fix finds nothing
//! in the fixed copy, and a snapshot holds the change (a diff, cell by cell in a notebook) with the
//! report of what is left. The cases where a rule must offer no fix offer none, and `gpulint rule`
//! says which rules fix.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use common::*;
use serde_json::Value;

/// Corpus cases whose findings of a rule carry no fix, with why.
const NO_FIX: &[(&str, &str, &str)] = &[
    (
        "gpu001/pos_pool_imported_by_name_after_cuda.py",
        "GPU001",
        "the file names no `get_context` to make a spawn pool from",
    ),
    (
        "gpu001/pos_notebook_model_cuda_then_pool.ipynb",
        "GPU001",
        "the pool is made in top-level code outside a main guard",
    ),
    (
        "gpu003/pos_rank_read_between_group_and_binding.py",
        "GPU003",
        "the binding reads a name computed after the group",
    ),
    (
        "gpu004/pos_pool_before_a_function_it_needs.py",
        "GPU004",
        "a function the children call is defined after the pool",
    ),
    (
        "gpu008/pos_get_rank_device_without_environ.py",
        "GPU008",
        "the file does not name the environment",
    ),
];

/// The findings of a `json` report, by case (a file, or a folder of `projects/`): each one's code
/// and whether it carries a fix.
fn findings_by_case(report: &[u8], dir: &Path) -> BTreeMap<String, Vec<(String, bool)>> {
    let findings: Value = serde_json::from_slice(report).expect("a JSON report");
    let base = std::fs::canonicalize(dir).expect("the folder exists");
    let mut out: BTreeMap<String, Vec<(String, bool)>> = BTreeMap::new();
    for f in findings.as_array().expect("an array") {
        let file = Path::new(f["filename"].as_str().expect("a filename"));
        let rel = file.strip_prefix(&base).expect("inside the folder");
        let case = match rel.strip_prefix("projects") {
            Ok(inner) => format!(
                "projects/{}",
                inner.iter().next().unwrap().to_string_lossy()
            ),
            Err(_) => rel.display().to_string(),
        };
        let code = f["code"].as_str().expect("a code").to_string();
        out.entry(case)
            .or_default()
            .push((code, !f["fix"].is_null()));
    }
    out
}

fn corpus_findings() -> BTreeMap<String, Vec<(String, bool)>> {
    let dir = root().join("corpus");
    let out = gpulint(&["check", "--output-format", "json", "."], &dir);
    findings_by_case(&out.stdout, &dir)
}

/// Each file of a case and its text; a notebook's code cells as files of their own
/// (`path:cell N`).
fn texts(dir: &Path, case: &str) -> BTreeMap<String, String> {
    let path = dir.join(case);
    let files = if path.is_dir() {
        case_files(&path)
    } else {
        vec![path]
    };
    let mut out = BTreeMap::new();
    for file in files {
        let rel = file.strip_prefix(dir).unwrap().display().to_string();
        let text = std::fs::read_to_string(&file).expect("a text file");
        if rel.ends_with(".ipynb") {
            for (cell, source) in notebook_cells(&text) {
                out.insert(format!("{rel}:cell {cell}"), source);
            }
        } else {
            out.insert(rel, text);
        }
    }
    out
}

fn copy(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            copy(&entry.path(), &to.join(entry.file_name()));
        }
    } else {
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(from, to).unwrap();
    }
}

/// Fixes a copy of `case`: the diff of what changed, the report `--fix` gave, and the codes a
/// check of the fixed copy finds.
fn fix_copy(case: &str) -> (String, String, Vec<String>) {
    let corpus = root().join("corpus");
    let tmp = tempfile::tempdir().unwrap();
    copy(&corpus.join(case), &tmp.path().join(case));
    let before = texts(tmp.path(), case);
    let args = [
        "check",
        "--fix",
        "--unsafe-fixes",
        "--output-format",
        "concise",
    ];
    let fixed = gpulint(&[&args[..], &[case]].concat(), tmp.path());
    assert!(fixed.status.code().is_some_and(|c| c <= 1), "{fixed:?}");
    let after = texts(tmp.path(), case);
    let mut diff = String::new();
    for (name, old) in &before {
        let new = &after[name];
        if old != new {
            let unified = similar::TextDiff::from_lines(old, new);
            diff.push_str(&unified.unified_diff().header(name, name).to_string());
        }
    }
    let check = gpulint(&["check", "--output-format", "json", case], tmp.path());
    let left = findings_by_case(&check.stdout, tmp.path())
        .into_values()
        .flatten()
        .map(|(code, _)| code)
        .collect();
    (
        diff,
        String::from_utf8_lossy(&fixed.stdout).into_owned(),
        left,
    )
}

#[test]
fn every_fixed_case_checks_clean_for_the_rules_it_fixed() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(root().join("tests/snapshots/fixes"));
    settings.set_prepend_module_to_snapshot(false);
    let cases: Vec<(String, Vec<(String, bool)>)> = corpus_findings()
        .into_iter()
        .filter(|(_, found)| found.iter().any(|(_, fix)| *fix))
        .collect();
    assert!(cases.len() >= 40, "only {} fixed cases", cases.len());
    settings.bind(|| {
        for (case, found) in cases {
            let (diff, report, left) = fix_copy(&case);
            assert!(!diff.is_empty(), "{case}: the fix changed nothing");
            assert!(!left.iter().any(|c| c == "GPU999"), "{case}: {report}");
            // A rule whose every finding had a fix is clean in the fixed copy.
            let fixed: BTreeSet<&String> = found
                .iter()
                .filter(|(code, _)| found.iter().all(|(c, fix)| c != code || *fix))
                .map(|(code, _)| code)
                .collect();
            for code in fixed {
                assert!(
                    !left.contains(code),
                    "{case}: {code} is still found after its fixes:\n{diff}\n{report}"
                );
            }
            let name = format!("fixed__{}", case.replace(['/', '.'], "_"));
            insta::assert_snapshot!(name, format!("{diff}\n# after the fixes\n{report}"));
        }
    });
}

#[test]
fn no_fix_is_offered_where_the_edit_is_not_mechanical() {
    let found = corpus_findings();
    for (case, code, why) in NO_FIX {
        let of_code: Vec<bool> = found
            .get(*case)
            .into_iter()
            .flatten()
            .filter(|(c, _)| c == code)
            .map(|(_, fix)| *fix)
            .collect();
        assert!(!of_code.is_empty(), "{case}: no {code} finding");
        assert!(
            of_code.iter().all(|fix| !fix),
            "{case}: {code} offers a fix, but {why}"
        );
    }
}

/// A rank that binds its device right after the group (GPU015, suppressed), with suppressions
/// that suppress nothing: GPU003 beside it, and GPU001 on the next line.
const UNUSED_NOQA: &str = r#"import os

import torch
import torch.distributed as dist


def setup():
    local_rank = int(os.environ["LOCAL_RANK"])
    dist.init_process_group("nccl")  # noqa: GPU015, GPU003
    torch.cuda.set_device(local_rank)  # noqa: GPU001
"#;

#[test]
fn an_unused_suppression_is_removed_and_the_used_one_kept() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("setup.py"), UNUSED_NOQA).unwrap();
    let report = [
        "check",
        "--report-unused-noqa",
        "--output-format",
        "json",
        ".",
    ];
    let before = findings_by_case(&gpulint(&report, dir.path()).stdout, dir.path());
    assert_eq!(
        before["setup.py"],
        [("GPU900".to_string(), true), ("GPU900".to_string(), true)]
    );
    let fixed = gpulint(&["check", "--report-unused-noqa", "--fix", "."], dir.path());
    assert_eq!(fixed.status.code(), Some(0), "{fixed:?}");
    let text = std::fs::read_to_string(dir.path().join("setup.py")).unwrap();
    let expected = UNUSED_NOQA
        .replace("# noqa: GPU015, GPU003", "# noqa: GPU015")
        .replace("(local_rank)  # noqa: GPU001", "(local_rank)");
    assert_eq!(text, expected);
    let after = findings_by_case(&gpulint(&report, dir.path()).stdout, dir.path());
    assert!(after.is_empty(), "{after:?}");
}

#[test]
fn gpulint_rule_says_which_rules_fix_and_they_do() {
    let mut found = corpus_findings();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("setup.py"), UNUSED_NOQA).unwrap();
    let report = [
        "check",
        "--report-unused-noqa",
        "--output-format",
        "json",
        ".",
    ];
    found.extend(findings_by_case(
        &gpulint(&report, dir.path()).stdout,
        dir.path(),
    ));
    let fixing: BTreeSet<&str> = found
        .values()
        .flatten()
        .filter(|(_, fix)| *fix)
        .map(|(code, _)| code.as_str())
        .collect();
    let rules = gpulint(&["rules"], &root());
    let codes: Vec<String> = String::from_utf8_lossy(&rules.stdout)
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect();
    assert!(codes.len() >= 18, "{codes:?}");
    for code in codes {
        let docs = gpulint(&["rule", &code], &root());
        let says = String::from_utf8_lossy(&docs.stdout).contains("Fix is sometimes available.");
        assert_eq!(
            says,
            fixing.contains(code.as_str()),
            "{code}: `gpulint rule` and the corpus disagree on whether it fixes"
        );
    }
}

#[test]
fn the_summary_counts_fixes_as_ruff_does() {
    let corpus = root().join("corpus");
    let summary = |args: &[&str]| {
        let out = gpulint(&[&["check"], args].concat(), &corpus);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.lines().last().unwrap_or_default().to_string()
    };
    // Safe fixes alone.
    assert_eq!(
        summary(&["gpu015/pos_set_device_right_after_init.py"]),
        "[*] 1 fixable with the `--fix` option."
    );
    // Unsafe fixes alone, hidden until asked for.
    assert_eq!(
        summary(&["gpu009/pos_load_passes_none_as_mapping.py"]),
        "No fixes available (1 hidden fix can be enabled with the `--unsafe-fixes` option)."
    );
    let both = [
        "gpu015/pos_set_device_right_after_init.py",
        "gpu009/pos_load_passes_none_as_mapping.py",
        "gpu009/pos_load_with_options_dict.py",
    ];
    assert_eq!(
        summary(&both),
        "[*] 1 fixable with the `--fix` option (2 hidden fixes can be enabled with the `--unsafe-fixes` option)."
    );
    assert_eq!(
        summary(&[&["--unsafe-fixes"], &both[..]].concat()),
        "[*] 3 fixable with the `--fix` option."
    );
    // No fix at all: no line about fixes.
    assert!(
        summary(&["gpu008/pos_get_rank_device_without_environ.py"]).starts_with("Found 1 finding")
    );
}

/// A notebook whose code cells are `cells`.
fn notebook(cells: &[&str]) -> String {
    let cells: Vec<Value> = cells
        .iter()
        .map(|source| {
            serde_json::json!({
                "cell_type": "code",
                "execution_count": null,
                "metadata": {},
                "outputs": [],
                "source": source,
            })
        })
        .collect();
    serde_json::json!({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
        .to_string()
}

#[test]
fn a_notebook_fix_stays_in_one_cell() {
    let imports = "import os\nimport torch\nimport torch.distributed as dist\n";
    let rank = "local_rank = int(os.environ[\"LOCAL_RANK\"])\n";
    let group = "dist.init_process_group(\"nccl\")\n";
    let bind = "torch.cuda.set_device(local_rank)\n";
    let dir = tempfile::tempdir().unwrap();
    let apart = notebook(&[imports, rank, group, bind]);
    let together = notebook(&[imports, rank, &format!("{group}{bind}")]);
    std::fs::write(dir.path().join("apart.ipynb"), &apart).unwrap();
    std::fs::write(dir.path().join("together.ipynb"), &together).unwrap();
    let report = gpulint(&["check", "--output-format", "json", "."], dir.path());
    let found = findings_by_case(&report.stdout, dir.path());
    // Moving the binding into the group's cell would change what each cell does when run alone.
    assert_eq!(found["apart.ipynb"], [("GPU015".to_string(), false)]);
    assert_eq!(found["together.ipynb"], [("GPU015".to_string(), true)]);
    let fixed = gpulint(&["check", "--fix", "together.ipynb"], dir.path());
    assert_eq!(fixed.status.code(), Some(0), "{fixed:?}");
    let json = std::fs::read_to_string(dir.path().join("together.ipynb")).unwrap();
    let cells: Vec<String> = notebook_cells(&json).into_iter().map(|(_, s)| s).collect();
    assert_eq!(cells, [imports, rank, &format!("{bind}{group}")]);
}
