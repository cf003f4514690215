//! Python inputs that once said too little: an imported module that does not parse.

mod common;

use std::path::Path;

/// A fork after CUDA was initialised: GPU001 on its last line.
const FORK_AFTER_INIT: &str = "import multiprocessing as mp\n\ndef work():\n    torch.zeros(1, device=\"cuda\")\n\ntorch.cuda.init()\nmp.Process(target=work).start()\n";

/// A program whose main file imports `helper.py`, which has a syntax error.
fn broken_import(dir: &Path) {
    let main = format!("import torch\nimport helper\n\n{FORK_AFTER_INIT}");
    std::fs::write(dir.join("main.py"), main).expect("write");
    std::fs::write(dir.join("helper.py"), "def broken(:\n    pass\n").expect("write");
}

/// The concise lines of a run that name `helper.py`.
fn helper_lines(args: &[&str], dir: &Path) -> Vec<String> {
    let out = common::gpulint(args, dir);
    assert_eq!(out.status.code(), Some(1), "{args:?}: exit status");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains("helper.py"))
        .map(str::to_string)
        .collect()
}

#[test]
fn an_imported_module_that_does_not_parse_is_named_when_its_importer_is_checked_alone() {
    let dir = tempfile::tempdir().expect("temporary folder");
    broken_import(dir.path());
    let alone = helper_lines(
        &["check", "--output-format", "concise", "main.py"],
        dir.path(),
    );
    let folder = helper_lines(&["check", "--output-format", "concise", "."], dir.path());
    assert!(
        alone.iter().any(|l| l.contains("GPU999")),
        "main.py alone: {alone:?}"
    );
    assert!(
        folder.iter().any(|l| l.contains("GPU999")),
        "the folder: {folder:?}"
    );
    // The same finding either way, and the importer's own finding is still reported.
    assert_eq!(alone, folder);
    let out = common::gpulint(
        &["check", "--output-format", "concise", "main.py"],
        dir.path(),
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("GPU001"));
}

#[test]
fn an_imported_module_that_parses_is_not_reported_when_its_importer_is_checked_alone() {
    let dir = tempfile::tempdir().expect("temporary folder");
    broken_import(dir.path());
    std::fs::write(dir.path().join("helper.py"), "def fine():\n    pass\n").expect("write");
    let alone = helper_lines(
        &["check", "--output-format", "concise", "main.py"],
        dir.path(),
    );
    assert!(alone.is_empty(), "{alone:?}");
}
