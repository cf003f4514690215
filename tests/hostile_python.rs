//! Python inputs that once cost too much or said too little: long runs of separate branches, and
//! an imported module that does not parse.

mod common;

use std::path::Path;

/// A fork after CUDA was initialised: GPU001 on its last line.
const FORK_AFTER_INIT: &str = "import multiprocessing as mp\n\ndef work():\n    torch.zeros(1, device=\"cuda\")\n\ntorch.cuda.init()\nmp.Process(target=work).start()\n";

/// CPU seconds a run may use. Each input is linear work of a few hundred milliseconds; the
/// quadratic runs these guard against took tens of seconds. Test builds are unoptimised.
fn cpu_bound() -> f64 {
    if cfg!(debug_assertions) {
        40.0
    } else {
        8.0
    }
}

/// Runs `gpulint check --output-format json prog.py` in `dir`: its exit status, the child's own
/// CPU seconds (from the kernel, not the clock), and its findings as (row, code).
fn check_timed(dir: &Path) -> (Option<i32>, f64, Vec<(u64, String)>) {
    let run = common::check_measured(dir, &["prog.py"]);
    let findings = run
        .findings
        .into_iter()
        .map(|(_, row, code, _)| (row, code))
        .collect();
    (run.code, run.cpu_seconds, findings)
}

/// `prefix` then the hazard, checked alone: it ends within the bound and the hazard, written after
/// the long part, is still found.
fn long_run_case(name: &str, prefix: &str) {
    let dir = tempfile::tempdir().expect("temporary folder");
    let text = format!("import torch\nx = len(input())\n{prefix}{FORK_AFTER_INIT}");
    let line = text.lines().count() as u64;
    std::fs::write(dir.path().join("prog.py"), &text).expect("write");
    let (code, cpu, findings) = check_timed(dir.path());
    eprintln!("{name}: {cpu:.2} s CPU");
    assert!(cpu < cpu_bound(), "{name}: {cpu:.2} s CPU");
    assert_eq!(code, Some(1), "{name}: exit status");
    assert!(
        findings.contains(&(line, "GPU001".to_string())),
        "{name}: the hazard on line {line} was lost: {findings:?}"
    );
}

#[test]
fn forty_thousand_separate_ifs_at_module_level() {
    let ifs: String = (0..40_000)
        .map(|i| format!("if x == {i}:\n    y_{i} = {i}\n"))
        .collect();
    long_run_case("40,000 ifs", &ifs);
}

#[test]
fn forty_thousand_separate_if_else_in_a_function() {
    let ifs: String = (0..40_000)
        .map(|i| format!("    if x == {i}:\n        a_{i} = {i}\n    else:\n        b_{i} = 0\n"))
        .collect();
    long_run_case(
        "40,000 if/else in a function",
        &format!("def f(x):\n{ifs}    return x\n\nf(x)\n"),
    );
}

#[test]
fn forty_thousand_match_cases() {
    let cases: String = (0..40_000)
        .map(|i| format!("    case {i}:\n        y_{i} = {i}\n"))
        .collect();
    long_run_case("40,000 match cases", &format!("match x:\n{cases}"));
}

#[test]
fn twenty_thousand_separate_loops_and_handlers() {
    let loops: String = (0..20_000)
        .map(|i| format!("for v in range(x):\n    y_{i} = v\n"))
        .collect();
    long_run_case("20,000 loops", &loops);
    let handlers: String = (0..20_000)
        .map(|i| format!("try:\n    pass\nexcept OSError:\n    y_{i} = {i}\n"))
        .collect();
    long_run_case("20,000 try/except", &handlers);
}

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

#[test]
fn an_imported_module_the_configuration_excludes_is_not_reported_when_it_does_not_parse() {
    // Python 2 code kept in an excluded folder: the user said not to check it, and a GPU999 could
    // not be silenced.
    let dir = tempfile::tempdir().expect("temporary folder");
    broken_import(dir.path());
    std::fs::write(
        dir.path().join("gpulint.toml"),
        "exclude = [\"helper.py\"]\n",
    )
    .expect("write");
    let alone = helper_lines(
        &["check", "--output-format", "concise", "main.py"],
        dir.path(),
    );
    assert!(alone.is_empty(), "{alone:?}");
    let folder = helper_lines(&["check", "--output-format", "concise", "."], dir.path());
    assert!(folder.is_empty(), "{folder:?}");
}
