//! Runs the labeled corpus and the bundled examples: every marked finding must be reported on its
//! line, and nothing else may be.

mod common;

use std::path::Path;

use common::*;

#[test]
fn corpus_findings_match_their_markers() {
    let dir = root().join("corpus");
    let expected = expected(&dir);
    let found = found(&dir);
    let diff = mismatches(&expected, &found);
    assert!(diff.is_empty(), "corpus mismatches:\n{}", diff.join("\n"));
}

#[test]
fn corpus_has_enough_cases_of_each_kind() {
    let dir = root().join("corpus");
    let files = case_files(&dir);
    for (rule, least) in [
        ("gpu001", 5),
        ("gpu002", 5),
        ("gpu003", 5),
        ("gpu004", 4),
        ("gpu005", 4),
        ("gpu006", 4),
        ("gpu007", 4),
        ("gpu008", 4),
        ("gpu009", 4),
        ("gpu010", 4),
        ("gpu011", 4),
        ("gpu012", 4),
        ("gpu013", 4),
        ("gpu014", 4),
        ("gpu015", 4),
        ("gpu101", 4),
        ("gpu102", 4),
        ("gpu103", 4),
    ] {
        let count = |prefix: &str| {
            files
                .iter()
                .filter(|p| p.parent().is_some_and(|d| d.ends_with(rule)))
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with(prefix))
                })
                .count()
        };
        assert!(count("pos_") >= least, "{rule}: too few positive cases");
        assert!(count("neg_") >= least, "{rule}: too few negative cases");
    }
    let positives = files
        .iter()
        .filter(|p| p.to_string_lossy().contains("/pos_"))
        .count();
    let negatives = files
        .iter()
        .filter(|p| p.to_string_lossy().contains("/neg_"))
        .count();
    assert!(
        positives >= 20 && negatives >= 20,
        "{positives} positive, {negatives} negative"
    );
}

#[test]
fn corpus_has_notebook_cases_of_both_kinds() {
    let dir = root().join("corpus");
    let notebooks = files_with_extension(&dir, "ipynb");
    let count = |prefix: &str| {
        notebooks
            .iter()
            .filter(|p| {
                let rel = p.strip_prefix(&dir).unwrap().to_string_lossy().into_owned();
                ["gpu001/", "gpu004/", "gpu006/", "projects/"]
                    .iter()
                    .any(|d| rel.starts_with(d))
                    && case_of(p.strip_prefix(&dir).unwrap())
                        .rsplit('/')
                        .next()
                        .is_some_and(|n| n.starts_with(prefix))
            })
            .count()
    };
    assert!(count("pos_") >= 4, "too few positive notebook cases");
    assert!(count("neg_") >= 4, "too few negative notebook cases");
}

/// A case is a file (a script or a notebook), or under `projects/` a folder of modules: `pos_`
/// cases carry markers, `neg_` cases none.
fn case_of(rel: &Path) -> String {
    let mut parts = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned());
    let first = parts.next().unwrap_or_default();
    if first == "projects" {
        format!("projects/{}", parts.next().unwrap_or_default())
    } else {
        rel.display().to_string()
    }
}

#[test]
fn negative_cases_carry_no_markers_and_positive_cases_do() {
    let dir = root().join("corpus");
    let expected = expected(&dir);
    let mut cases: std::collections::BTreeMap<String, bool> = Default::default();
    for path in case_files(&dir) {
        let rel = path.strip_prefix(&dir).expect("under corpus");
        let shown = rel.display().to_string();
        let marked = expected
            .keys()
            .any(|(file, _)| *file == shown || file.starts_with(&format!("{shown}:cell ")));
        *cases.entry(case_of(rel)).or_default() |= marked;
    }
    for (case, marked) in &cases {
        let name = case.rsplit('/').next().unwrap_or_default();
        assert!(
            name.starts_with("pos_") || name.starts_with("neg_"),
            "{case}: name a case pos_ or neg_"
        );
        assert_eq!(*marked, name.starts_with("pos_"), "{case}");
    }
}

#[test]
fn corpus_has_rust_cases_of_both_kinds_for_each_rust_rule() {
    let dir = root().join("corpus");
    let rust = files_with_extension(&dir, "rs");
    for rule in ["gpu101", "gpu102", "gpu103"] {
        for prefix in ["pos_", "neg_"] {
            let n = rust
                .iter()
                .filter(|p| p.parent().is_some_and(|d| d.ends_with(rule)))
                .filter(|p| {
                    p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with(prefix))
                })
                .count();
            assert!(n >= 4, "{rule}: {n} {prefix} Rust cases");
        }
    }
}

#[test]
fn cross_module_cases_have_positive_and_negative_projects() {
    let dir = root().join("corpus").join("projects");
    for case in [
        "init_at_import",
        "helper_three_calls",
        "relative_package",
        "src_layout",
        "namespace_package",
        "pinned_module_global",
        "group_in_helper_module",
    ] {
        for kind in ["pos", "neg"] {
            let project = dir.join(format!("{kind}_{case}"));
            assert!(project.is_dir(), "missing {}", project.display());
            assert!(python_files(&project).len() >= 2, "{case}: one module only");
        }
    }
}

#[test]
fn examples_findings_match_their_markers() {
    let dir = root().join("examples");
    let diff = mismatches(&expected(&dir), &found(&dir));
    assert!(diff.is_empty(), "examples mismatches:\n{}", diff.join("\n"));
}
