//! `--baseline`: recorded findings hidden, and still matched after edits elsewhere.

use super::*;

#[test]
fn a_baseline_hides_the_findings_it_records_and_survives_edits_elsewhere() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(root.join("hazard.py"), HAZARD).unwrap();
    fs::write(root.join("group.py"), GROUP).unwrap();
    let write = gpulint(&["check", "--write-baseline", "baseline.json", "."], root);
    assert_eq!(write.status.code(), Some(0), "{write:?}");
    assert!(stderr(&write).contains("Wrote 2 findings"), "{write:?}");
    let record: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(root.join("baseline.json")).unwrap()).unwrap();
    let recorded: Vec<&str> = record["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["fingerprint"].as_str().unwrap())
        .collect();
    // The same fingerprints as the GitLab report's.
    let gitlab: serde_json::Value =
        serde_json::from_slice(&gpulint(&["check", "--output-format", "gitlab", "."], root).stdout)
            .unwrap();
    let mut from_gitlab: Vec<&str> = gitlab
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["fingerprint"].as_str().unwrap())
        .collect();
    let mut sorted = recorded.clone();
    sorted.sort();
    from_gitlab.sort();
    assert_eq!(sorted, from_gitlab);

    let out = gpulint(&["check", "--baseline", "baseline.json", "."], root);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        stdout(&out).contains("All checks passed! (2 hidden by the baseline)"),
        "{out:?}"
    );
    // Lines added above the finding, and a new copy of the hazard below: only the copy is new.
    let fork = &HAZARD[HAZARD.find("with").unwrap()..];
    fs::write(
        root.join("hazard.py"),
        format!("# a comment\n\n{HAZARD}{fork}"),
    )
    .unwrap();
    let out = gpulint(
        &[
            "check",
            "--baseline",
            "baseline.json",
            "--output-format",
            "concise",
            ".",
        ],
        root,
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let text = stdout(&out);
    assert!(text.starts_with("hazard.py:12:6: GPU001"), "{text}");
    assert!(
        text.contains(
            "Found 1 finding (1 error, 0 warnings) in 1 file; 2 more hidden by the baseline."
        ),
        "{text}"
    );
    // From a subfolder, through the configuration's `baseline` key (relative to its file).
    fs::create_dir(root.join("sub")).unwrap();
    fs::write(root.join("gpulint.toml"), "baseline = \"baseline.json\"\n").unwrap();
    let out = gpulint(
        &["check", "--output-format", "concise", ".."],
        &root.join("sub"),
    );
    assert!(
        stdout(&out).contains("2 more hidden by the baseline"),
        "{out:?}"
    );
    let json: serde_json::Value =
        serde_json::from_slice(&gpulint(&["check", "--output-format", "json", "."], root).stdout)
            .unwrap();
    assert_eq!(json.as_array().unwrap().len(), 1, "{json}");

    // A bad or missing baseline is an error that names the file.
    fs::write(root.join("baseline.json"), "{\"findings\": 3}").unwrap();
    let bad = gpulint(&["check", "."], root);
    assert_eq!(bad.status.code(), Some(2), "{bad:?}");
    assert!(
        stderr(&bad).contains("baseline.json is not a gpulint baseline"),
        "{bad:?}"
    );
    let missing = gpulint(&["check", "--baseline", "nope.json", "."], root);
    assert_eq!(missing.status.code(), Some(2), "{missing:?}");
    assert!(stderr(&missing).contains("nope.json"), "{missing:?}");
}
