//! Runs the labeled corpus and the bundled examples: every marked finding must be reported on its
//! line, and nothing else may be.

mod common;

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
    let files = python_files(&dir);
    for rule in ["gpu001", "gpu002", "gpu003"] {
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
        assert!(count("pos_") >= 5, "{rule}: too few positive cases");
        assert!(count("neg_") >= 5, "{rule}: too few negative cases");
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
fn negative_cases_carry_no_markers_and_positive_cases_do() {
    let dir = root().join("corpus");
    let expected = expected(&dir);
    for path in python_files(&dir) {
        let rel = path
            .strip_prefix(&dir)
            .expect("under corpus")
            .display()
            .to_string();
        let marked = expected.keys().any(|(file, _)| *file == rel);
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        assert_eq!(marked, name.starts_with("pos_"), "{rel}");
    }
}

#[test]
fn examples_findings_match_their_markers() {
    let dir = root().join("examples");
    let diff = mismatches(&expected(&dir), &found(&dir));
    assert!(diff.is_empty(), "examples mismatches:\n{}", diff.join("\n"));
}
