//! `--select`, `--ignore` and `--extend-select` over the configuration, as in ruff.

use super::*;

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(p, c)| (p.to_string(), c.to_string()))
        .collect()
}

#[test]
fn select_ignore_and_extend_select_layer_over_the_configuration_as_in_ruff() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir(root.join("tests")).unwrap();
    fs::write(root.join("hazard.py"), HAZARD).unwrap();
    fs::write(root.join("group.py"), GROUP).unwrap();
    fs::write(root.join("tests/hazard.py"), HAZARD).unwrap();
    let all = pairs(&[
        ("group.py", "GPU015"),
        ("hazard.py", "GPU001"),
        ("tests/hazard.py", "GPU001"),
    ]);
    assert_eq!(findings(&["."], root), all);
    assert_eq!(
        findings(&["--select", "GPU01", "."], root),
        pairs(&[("group.py", "GPU015")])
    );
    assert_eq!(
        findings(&["--ignore", "GPU015,GPU9", "."], root),
        all[1..].to_vec()
    );
    // A more specific selector wins over a prefix, as in ruff.
    assert_eq!(
        findings(&["--select", "GPU001", "--ignore", "GPU0", "."], root),
        all[1..].to_vec()
    );

    // The configuration ignores GPU001 and has a per-file table.
    fs::write(
        root.join("gpulint.toml"),
        "ignore = [\"GPU001\"]\n[per-file-ignores]\n\"group.py\" = [\"GPU015\"]\n",
    )
    .unwrap();
    assert_eq!(findings(&["."], root), Vec::new());
    // --select replaces the configuration's selection, --extend-select adds to it.
    assert_eq!(
        findings(&["--select", "GPU001", "."], root),
        all[1..].to_vec()
    );
    assert_eq!(
        findings(&["--extend-select", "GPU001", "."], root),
        all[1..].to_vec()
    );
    // --per-file-ignores replaces the configuration's table (ruff's form, then a list).
    assert_eq!(
        findings(
            &[
                "--select",
                "ALL",
                "--per-file-ignores",
                "tests/*.py:GPU001",
                "."
            ],
            root
        ),
        all[..2].to_vec()
    );
    assert_eq!(
        findings(
            &[
                "--select",
                "ALL",
                "--per-file-ignores",
                "tests/*.py:GPU001,GPU015,group.py:GPU0",
                "."
            ],
            root
        ),
        pairs(&[("hazard.py", "GPU001")])
    );

    // Unknown rules and malformed patterns are usage errors.
    for bad in [
        vec!["--select", "E501"],
        vec!["--ignore", "GPX"],
        vec!["--per-file-ignores", "GPU001"],
        vec!["--per-file-ignores", "a.py:E501"],
    ] {
        let mut args = vec!["check"];
        args.extend(bad.iter().copied());
        let out = gpulint(&args, root);
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {out:?}");
    }
}
