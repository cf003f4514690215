//! `# noqa` comments: suppression, `--report-unused-noqa`, `--add-noqa`.

use super::*;

#[test]
fn noqa_comments_suppress_by_line_code_and_file() {
    let dir = tempfile::tempdir().unwrap();
    let fork_line = "with mp.Pool(2) as pool:";
    let with = |comment: &str| HAZARD.replace(fork_line, &format!("{fork_line}  {comment}"));
    fs::write(dir.path().join("bare.py"), with("# noqa")).unwrap();
    fs::write(dir.path().join("coded.py"), with("# noqa: GPU001")).unwrap();
    fs::write(dir.path().join("other.py"), with("# noqa: GPU003")).unwrap();
    fs::write(
        dir.path().join("whole.py"),
        format!("# gpulint: noqa: gpu001\n{HAZARD}"),
    )
    .unwrap();
    let out = gpulint(&["check", "--output-format", "concise", "."], dir.path());
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    // Only the comment naming another code leaves the finding in place.
    assert!(text.contains("other.py:8:6: GPU001"), "{text}");
    for silenced in ["bare.py", "coded.py", "whole.py"] {
        assert!(!text.contains(silenced), "{silenced}: {text}");
    }
    assert!(
        text.contains("3 more suppressed by `noqa` comments"),
        "{text}"
    );
}

#[test]
fn report_unused_noqa_names_gpulint_codes_that_suppress_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let fork_line = "with mp.Pool(2) as pool:";
    fs::write(
        dir.path().join("hazard.py"),
        HAZARD.replace(
            fork_line,
            &format!("{fork_line}  # noqa: GPU001, GPU003, E501"),
        ),
    )
    .unwrap();
    fs::write(
        dir.path().join("clean.py"),
        format!("# gpulint: noqa\n{CLEAN}x = 1  # noqa\n"),
    )
    .unwrap();
    let plain = gpulint(&["check", "--output-format", "concise", "."], dir.path());
    assert_eq!(plain.status.code(), Some(0), "{plain:?}");
    let out = gpulint(
        &[
            "check",
            "--report-unused-noqa",
            "--output-format",
            "concise",
            ".",
        ],
        dir.path(),
    );
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    // GPU001 was used; GPU003 was not; E501 and the bare `# noqa` belong to other tools.
    assert!(
        text.contains("hazard.py:8:27: GPU900 [warning] [*] Unused `noqa` for GPU003"),
        "{text}"
    );
    assert!(
        text.contains("clean.py:1:1: GPU900 [warning] [*] Unused file-level suppression"),
        "{text}"
    );
    assert_eq!(text.matches("GPU900").count(), 2, "{text}");
}

#[test]
fn add_noqa_comments_each_finding_and_merges_with_an_existing_noqa() {
    let dir = tempfile::tempdir().unwrap();
    let fork_line = "with mp.Pool(2) as pool:";
    let source = format!(
        "{}{}",
        HAZARD.replace(fork_line, &format!("{fork_line}  # noqa: E501 (long)")),
        "with mp.Pool(2) as other:   \n    other.map(work, [1])\n"
    );
    fs::write(dir.path().join("hazard.py"), &source).unwrap();
    // A finding whose line ends inside a string cannot take a comment there.
    let in_string = HAZARD.replace(
        fork_line,
        "with mp.Pool(2, initargs=(\"\"\"\n\"\"\",)) as pool:",
    );
    fs::write(dir.path().join("string.py"), &in_string).unwrap();
    let out = gpulint(&["check", "--add-noqa", "."], dir.path());
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(stderr(&out).contains("Added 2 noqa directives."), "{out:?}");
    assert!(
        stderr(&out).contains("string.py:8: no noqa comment added"),
        "{out:?}"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("string.py")).unwrap(),
        in_string
    );
    let edited = fs::read_to_string(dir.path().join("hazard.py")).unwrap();
    assert!(
        edited.contains("with mp.Pool(2) as pool:  # noqa: E501, GPU001 (long)\n"),
        "{edited}"
    );
    assert!(
        edited.contains("with mp.Pool(2) as other:  # noqa: GPU001\n"),
        "{edited}"
    );
    // Nothing else changed, and the findings are gone.
    assert_eq!(edited.lines().count(), source.lines().count());
    let again = gpulint(
        &["check", "--output-format", "concise", "hazard.py"],
        dir.path(),
    );
    assert_eq!(again.status.code(), Some(0), "{again:?}");
    let twice = gpulint(&["check", "--add-noqa", "hazard.py"], dir.path());
    assert!(
        stderr(&twice).contains("Added 0 noqa directives."),
        "{twice:?}"
    );
}

#[test]
fn add_noqa_goes_after_a_lines_own_comment() {
    let dir = tempfile::tempdir().unwrap();
    let fork_line = "with mp.Pool(2) as pool:";
    let source = HAZARD.replace(fork_line, &format!("{fork_line}  # one pool, é"));
    fs::write(dir.path().join("hazard.py"), &source).unwrap();
    let out = gpulint(&["check", "--add-noqa", "hazard.py"], dir.path());
    assert!(stderr(&out).contains("Added 1 noqa directive."), "{out:?}");
    let edited = fs::read_to_string(dir.path().join("hazard.py")).unwrap();
    assert!(
        edited.contains("with mp.Pool(2) as pool:  # one pool, é  # noqa: GPU001\n"),
        "{edited}"
    );
    // The directive inside the line's comment is read as one.
    let again = gpulint(&["check", "hazard.py"], dir.path());
    assert_eq!(again.status.code(), Some(0), "{again:?}");
}
