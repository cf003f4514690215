//! Standard input: `--stdin-filename` and `-`.

use super::*;

#[test]
fn stdin_filename_checks_standard_input_under_that_path() {
    use std::io::Write as _;
    let dir = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .args([
            "check",
            "--stdin-filename",
            "pkg/edited.py",
            "--output-format",
            "concise",
        ])
        .current_dir(dir.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(HAZARD.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).starts_with("pkg/edited.py:8:6: GPU001 "),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_dash_reads_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["check", "--output-format", "concise", "-"];
    let out = gpulint_with_stdin(&args, dir.path(), HAZARD);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(stdout(&out).starts_with("-:8:6: GPU001 "), "{out:?}");
    let named = [
        "check",
        "--output-format",
        "concise",
        "--stdin-filename",
        "a/b.py",
        "-",
    ];
    let out = gpulint_with_stdin(&named, dir.path(), HAZARD);
    assert!(stdout(&out).starts_with("a/b.py:8:6: GPU001 "), "{out:?}");
    let mixed = gpulint_with_stdin(&["check", "-", "x.py"], dir.path(), HAZARD);
    assert_eq!(mixed.status.code(), Some(2), "{mixed:?}");
}
