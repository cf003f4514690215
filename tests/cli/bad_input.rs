//! Files that do not parse or nest deeply: GPU999 for them, and the other files still checked.

use super::*;

#[test]
fn bad_files_get_gpu999_and_the_other_files_are_still_checked() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("a_syntax.py"),
        "import torch\ndef broken(:\n    pass\n",
    )
    .unwrap();
    // Names no GPU package: nothing else is looked for in it, but its syntax is checked too.
    fs::write(dir.path().join("f_plain_syntax.py"), "def broken(:\n").unwrap();
    fs::write(dir.path().join("b_latin1.py"), b"x = 1\ny = '\xe9'\n").unwrap();
    fs::write(dir.path().join("c_nul.py"), b"x = 1\n\0\n").unwrap();
    fs::write(dir.path().join("d_hazard.py"), HAZARD).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(
        dir.path().join("missing.py"),
        dir.path().join("e_broken_link.py"),
    )
    .unwrap();
    let out = gpulint(&["check", "--output-format", "concise", "."], dir.path());
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("a_syntax.py:2:12: GPU999 [error] Syntax error:"),
        "{text}"
    );
    assert!(
        text.contains("f_plain_syntax.py:1:12: GPU999 [error] Syntax error:"),
        "{text}"
    );
    assert!(
        text.contains(
            "b_latin1.py:2:6: GPU999 [error] Unreadable file: the file is not valid UTF-8"
        ),
        "{text}"
    );
    assert!(
        text.contains("c_nul.py:2:1: GPU999 [error] Unreadable file: the file contains a NUL byte"),
        "{text}"
    );
    assert!(text.contains("d_hazard.py:8:6: GPU001"), "{text}");
    #[cfg(unix)]
    assert!(
        text.contains("e_broken_link.py:1:1: GPU999 [error] Unreadable file:"),
        "{text}"
    );

    let missing = gpulint(
        &["check", "--output-format", "concise", "nope.py"],
        dir.path(),
    );
    assert!(stdout(&missing).contains("nope.py:1:1: GPU999 [error] Unreadable file:"));
}

#[test]
fn deep_nesting_does_not_crash() {
    let dir = tempfile::tempdir().unwrap();
    let depth = 3000;
    let source = format!("x = {}1{}\n", "(".repeat(depth), ")".repeat(depth));
    fs::write(dir.path().join("deep.py"), source).unwrap();
    let mut nested = String::new();
    for level in 0..90 {
        nested.push_str(&"    ".repeat(level));
        nested.push_str("if x:\n");
    }
    nested.push_str(&"    ".repeat(90));
    nested.push_str("pass\n");
    fs::write(dir.path().join("nested.py"), format!("x = 1\n{nested}")).unwrap();
    let out = gpulint(&["check", "."], dir.path());
    assert!(out.status.code().is_some_and(|c| c <= 1), "{out:?}");
}

#[test]
fn syntax_errors_are_reported_in_files_that_reach_no_gpu_library() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("plain.py"),
        "import os\n\ndef broken(:\n    pass\n",
    )
    .unwrap();
    fs::write(dir.path().join("fine.py"), "import os\nprint(os.sep)\n").unwrap();
    let notebook = serde_json::json!({
        "cells": [
            {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null,
             "source": ["x = 1\n"]},
            {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null,
             "source": ["%time y = 2\n", "print(x +)\n"]},
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5
    });
    fs::write(dir.path().join("notes.ipynb"), notebook.to_string()).unwrap();
    let out = gpulint(&["check", "--output-format", "concise", "."], dir.path());
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("plain.py:3:12: GPU999 [error] Syntax error:"),
        "{text}"
    );
    assert!(
        text.contains("notes.ipynb:cell 2:2:10: GPU999 [error] Syntax error:"),
        "{text}"
    );
    assert!(!text.contains("fine.py"), "{text}");
    assert!(
        text.contains("Found 2 findings (2 errors, 0 warnings)"),
        "{text}"
    );
    // Standard input too.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .args(["check", "--output-format", "concise", "-"])
        .current_dir(dir.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(b"x = (1,\n").unwrap();
    let piped = child.wait_with_output().unwrap();
    assert_eq!(piped.status.code(), Some(1));
    assert!(stdout(&piped).starts_with("-:"), "{}", stdout(&piped));
    assert!(
        stdout(&piped).contains(" GPU999 [error] "),
        "{}",
        stdout(&piped)
    );
}
