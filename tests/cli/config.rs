//! Configuration: `pyproject.toml` and `gpulint.toml` settings, `--config`, `--show-settings`, and
//! bad settings named with their place.

use super::*;

#[test]
fn target_version_and_platform_change_the_default_start_method() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("hazard.py"), HAZARD).unwrap();
    let code = |args: &[&str]| gpulint(args, dir.path()).status.code();
    // The rules found, in order, with the exit status.
    let found = |extra: &[&str]| {
        let mut args = vec!["check", "--output-format", "concise"];
        args.extend_from_slice(extra);
        args.push("hazard.py");
        let out = gpulint(&args, dir.path());
        let text = stdout(&out);
        let codes: Vec<String> = text
            .lines()
            .filter_map(|l| l.split(": ").nth(1)?.split(' ').next())
            .map(String::from)
            .collect();
        (out.status.code(), codes)
    };
    assert_eq!(found(&[]), (Some(1), vec!["GPU001".to_string()]));
    // Spawn re-imports the module in the child: the unguarded pool is created again there and
    // fails (GPU004), but the child gets its own clean CUDA state (no GPU001).
    for platform in ["macos", "windows"] {
        assert_eq!(
            found(&["--platform", platform]),
            (Some(1), vec!["GPU004".to_string()]),
            "{platform}"
        );
    }
    // Forkserver (Linux, 3.14+): the server imports the main module, whose top level initialises
    // CUDA, so the fork hazard stays, and creating the pool there fails too.
    assert_eq!(
        found(&["--target-version", "py314"]),
        (Some(1), vec!["GPU001".to_string(), "GPU004".to_string()])
    );
    assert_eq!(
        code(&["check", "--target-version", "py2", "hazard.py"]),
        Some(2)
    );

    // requires-python >= 3.14 with CUDA only under the main guard: forkserver children start clean.
    let guarded = HAZARD.replace(
        "model = torch.nn.Linear(2, 2).cuda()\nwith mp.Pool(2) as pool:\n    pool.map(work, [torch.ones(2)])\n",
        "if __name__ == '__main__':\n    model = torch.nn.Linear(2, 2).cuda()\n    with mp.Pool(2) as pool:\n        pool.map(work, [torch.ones(2)])\n",
    );
    fs::write(dir.path().join("hazard.py"), guarded).unwrap();
    assert_eq!(code(&["check", "hazard.py"]), Some(1));
    fs::write(
        dir.path().join("pyproject.toml"),
        "[project]\nname = \"x\"\nrequires-python = \">=3.14\"\n",
    )
    .unwrap();
    assert_eq!(code(&["check", "hazard.py"]), Some(0));
    assert_eq!(
        code(&["check", "--target-version", "py313", "hazard.py"]),
        Some(1)
    );
    fs::write(
        dir.path().join("pyproject.toml"),
        "[project]\nname = \"x\"\n[tool.gpulint]\ntarget-version = \"py313\"\n",
    )
    .unwrap();
    assert_eq!(code(&["check", "hazard.py"]), Some(1));
}

#[test]
fn a_bad_setting_in_pyproject_names_the_file_and_key() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("hazard.py"), HAZARD).unwrap();
    fs::write(
        dir.path().join("pyproject.toml"),
        "[tool.gpulint]\nplatform = \"beos\"\n",
    )
    .unwrap();
    let out = gpulint(&["check", "hazard.py"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("pyproject.toml") && err.contains("platform"),
        "{err}"
    );
}

#[test]
fn configuration_selects_ignores_excludes_and_sets_severity() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir_all(root.join("tests")).unwrap();
    fs::create_dir_all(root.join("vendor")).unwrap();
    fs::create_dir_all(root.join("legacy")).unwrap();
    for path in [
        "app.py",
        "tests/test_app.py",
        "vendor/lib.py",
        "legacy/old.py",
    ] {
        fs::write(root.join(path), HAZARD).unwrap();
    }
    fs::write(
        root.join("pyproject.toml"),
        "[project]\nname = \"x\"\n\n[tool.gpulint]\nexclude = [\"vendor\"]\n[tool.gpulint.per-file-ignores]\n\"tests/*.py\" = [\"GPU001\"]\n[tool.gpulint.severity]\nGPU001 = \"warning\"\n",
    )
    .unwrap();
    // The nearest configuration wins: legacy/ has its own, which selects nothing of GPU001.
    fs::write(root.join("legacy/gpulint.toml"), "ignore = [\"GPU0\"]\n").unwrap();
    let json = |args: &[&str]| -> Vec<(String, String)> {
        let out = gpulint(args, root);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v.as_array()
            .unwrap()
            .iter()
            .map(|d| {
                let file = std::path::Path::new(d["filename"].as_str().unwrap());
                let rel = file.strip_prefix(root).unwrap_or(file);
                (
                    rel.display().to_string(),
                    d["severity"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let found = json(&["check", "--output-format", "json", "."]);
    assert_eq!(
        found,
        vec![("app.py".to_string(), "warning".to_string())],
        "{found:?}"
    );

    // A file named on the command line is checked even when excluded.
    let named = json(&["check", "--output-format", "json", "vendor/lib.py"]);
    assert_eq!(named.len(), 1, "{named:?}");

    // --isolated reads no configuration: every file, default severity.
    let isolated = json(&["check", "--output-format", "json", "--isolated", "."]);
    assert_eq!(isolated.len(), 4, "{isolated:?}");
    assert!(isolated.iter().all(|(_, s)| s == "error"));

    // --config applies one file everywhere.
    fs::write(root.join("strict.toml"), "select = [\"GPU003\"]\n").unwrap();
    let strict = gpulint(&["check", "--config", "strict.toml", "."], root);
    assert_eq!(strict.status.code(), Some(0), "{strict:?}");
}

#[test]
fn a_bad_configuration_is_shown_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("hazard.py"), HAZARD).unwrap();
    fs::write(
        dir.path().join("gpulint.toml"),
        "select = [\"GPU001\"]\n[severity]\nGPU001 = \"fatal\"\n",
    )
    .unwrap();
    let out = gpulint(&["check", "hazard.py"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("gpulint.toml:3"), "{err}");
    assert!(
        err.contains("is not \"error\", \"warning\" or \"info\""),
        "{err}"
    );

    fs::write(dir.path().join("gpulint.toml"), "colour = true\n").unwrap();
    let out = gpulint(&["check", "hazard.py"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown field `colour`"));
}

#[test]
fn show_settings_prints_what_applies_to_a_file() {
    let dir = tempfile::tempdir().unwrap();
    write_excluding_project(dir.path());
    fs::write(
        dir.path().join("pyproject.toml"),
        "[project]\nname = \"x\"\nrequires-python = \">=3.14\"\n",
    )
    .unwrap();
    fs::write(
        dir.path().join("gpulint.toml"),
        "exclude = [\"vendor\"]\nignore = [\"GPU01\"]\nfail-on = \"error\"\n[severity]\nGPU002 = \"warning\"\n",
    )
    .unwrap();
    let out = gpulint(&["check", "--show-settings", "vendor/lib.py"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = stdout(&out);
    for line in [
        "# Settings for vendor/lib.py",
        "# configuration: gpulint.toml",
        "target-version = \"py314\"  # from requires-python",
        "platform = \"linux\"",
        "# a default multiprocessing context starts children by forkserver",
        "fail-on = \"error\"",
        "excluded = true",
        "GPU001 = \"error\"",
        "GPU002 = \"warning\"",
    ] {
        assert!(text.lines().any(|l| l.starts_with(line)), "{line}:\n{text}");
    }
    assert!(!text.contains("GPU015"), "ignored: {text}");
    // The command line counts, and a folder shows what a file directly in it gets.
    let out = gpulint(
        &[
            "check",
            "--show-settings",
            "--platform",
            "macos",
            "--extend-select",
            "GPU015",
            ".",
        ],
        dir.path(),
    );
    let text = stdout(&out);
    assert!(
        text.contains("# Settings for files directly in ."),
        "{text}"
    );
    assert!(text.contains("starts children by spawn"), "{text}");
    assert!(text.contains("GPU015 = \"info\""), "{text}");
    assert!(text.contains("excluded = false"), "{text}");
}

/// `(code, severity)` of each finding of a JSON run.
fn json_findings(args: &[&str], dir: &Path) -> (Option<i32>, Vec<(String, String)>) {
    let mut all = vec!["check", "--output-format", "json"];
    all.extend_from_slice(args);
    let out = gpulint(&all, dir);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", stderr(&out)));
    let found = json
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["severity"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (out.status.code(), found)
}

#[test]
fn config_takes_key_value_settings_over_the_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(root.join("hazard.py"), HAZARD).unwrap();
    let error = || vec![("GPU001".to_string(), "error".to_string())];
    assert_eq!(json_findings(&["."], root), (Some(1), error()));

    // One setting, and several, the later winning.
    let ignored = json_findings(&["--config", "ignore = [\"GPU001\"]", "."], root);
    assert_eq!(ignored, (Some(0), vec![]));
    let warned = json_findings(
        &[
            "--config",
            "severity.GPU001 = 'warning'",
            "--config",
            "fail-on = 'info'",
            "--config",
            "fail-on = 'error'",
            ".",
        ],
        root,
    );
    assert_eq!(warned, (Some(0), vec![("GPU001".into(), "warning".into())]));

    // Over a configuration file found for the file: its keys stay unless a setting gives them.
    fs::write(
        root.join("gpulint.toml"),
        "fail-on = \"error\"\n[severity]\nGPU001 = \"info\"\n",
    )
    .unwrap();
    assert_eq!(
        json_findings(&["."], root),
        (Some(0), vec![("GPU001".into(), "info".into())])
    );
    assert_eq!(
        json_findings(&["--config", "fail-on = 'info'", "."], root),
        (Some(1), vec![("GPU001".into(), "info".into())])
    );
    // `severity` is replaced rule by rule: GPU001's level comes from the setting.
    assert_eq!(
        json_findings(&["--config", "severity = { GPU015 = 'error' }", "."], root),
        (Some(0), vec![("GPU001".into(), "info".into())])
    );
    assert_eq!(
        json_findings(&["--config", "severity.GPU001 = 'error'", "."], root),
        (Some(1), error())
    );

    // Over a configuration file named by `--config`, in either order.
    fs::write(
        root.join("lenient.toml"),
        "fail-on = \"error\"\n[severity]\nGPU001 = \"warning\"\n",
    )
    .unwrap();
    let warning = || vec![("GPU001".to_string(), "warning".to_string())];
    assert_eq!(
        json_findings(&["--config", "lenient.toml", "."], root),
        (Some(0), warning())
    );
    for args in [
        &[
            "--config",
            "lenient.toml",
            "--config",
            "fail-on = 'warning'",
            ".",
        ][..],
        &[
            "--config",
            "fail-on = 'warning'",
            "--config",
            "lenient.toml",
            ".",
        ],
    ] {
        assert_eq!(
            json_findings(args, root),
            (Some(1), warning()),
            "{args:?}: the setting wins over the file"
        );
    }

    // The command line's own flags win over a setting.
    assert_eq!(
        json_findings(
            &["--config", "fail-on = 'error'", "--fail-on", "info", "."],
            root
        )
        .0,
        Some(1)
    );
    // Under --isolated, settings still apply (no file is read).
    assert_eq!(
        json_findings(
            &["--isolated", "--config", "select = ['GPU015']", "."],
            root
        ),
        (Some(0), vec![])
    );
}

#[test]
fn config_settings_set_every_kind_of_key() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir(root.join("tests")).unwrap();
    fs::write(root.join("hazard.py"), HAZARD).unwrap();
    fs::write(root.join("tests/test_hazard.py"), HAZARD).unwrap();
    let files = |args: &[&str]| shown_files(args, root);
    assert_eq!(files(&["."]), ["hazard.py", "tests/test_hazard.py"]);
    assert_eq!(
        files(&["--config", "extend-exclude = ['tests']", "."]),
        ["hazard.py"]
    );
    assert_eq!(
        files(&["--config", "exclude = ['hazard.py']", "."]),
        ["tests/test_hazard.py"]
    );
    // Per-file ignores, relative to the working directory.
    let (_, found) = json_findings(&["."], root);
    assert_eq!(found.len(), 2, "{found:?}");
    let (_, found) = json_findings(
        &[
            "--config",
            "per-file-ignores = { 'tests/*.py' = ['GPU001'] }",
            ".",
        ],
        root,
    );
    assert_eq!(found.len(), 1, "{found:?}");
    // The target version, and where `--show-settings` says it came from.
    let settings = stdout(&gpulint(
        &[
            "check",
            "--show-settings",
            "--config",
            "target-version = 'py314'",
            "--config",
            "platform = 'macos'",
            "hazard.py",
        ],
        root,
    ));
    assert!(
        settings.contains("target-version = \"py314\"  # from --config"),
        "{settings}"
    );
    assert!(settings.contains("platform = \"macos\""), "{settings}");
}

#[test]
fn a_config_value_that_is_neither_a_file_nor_a_setting_is_named() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("hazard.py"), HAZARD).unwrap();
    for value in ["nosuch.toml", "select GPU001", "", "# only a comment"] {
        let out = gpulint(&["check", "--config", value, "hazard.py"], dir.path());
        assert_eq!(out.status.code(), Some(2), "{value:?}");
        let err = stderr(&out);
        assert!(
            err.contains(&format!(
                "--config '{value}': neither a file nor a valid `KEY = VALUE` TOML setting"
            )),
            "{value:?}: {err}"
        );
    }
    // TOML, but no key of gpulint's, or a bad value: shown like a configuration file's error,
    // named `--config`.
    for (value, says) in [
        ("colour = true", "unknown field `colour`"),
        ("fail-on = 'fatal'", "fail-on `fatal` is not"),
        ("select = ['E501']", "`E501` selects no rule"),
        ("extend-exclude = ['a[']", "`a[` is not a glob"),
    ] {
        let out = gpulint(&["check", "--config", value, "hazard.py"], dir.path());
        assert_eq!(out.status.code(), Some(2), "{value:?}");
        let err = stderr(&out);
        assert!(err.contains(says), "{value:?}: {err}");
        assert!(err.contains("--config:1:"), "{value:?}: {err}");
    }
    // One configuration file at most; none under --isolated.
    fs::write(dir.path().join("a.toml"), "").unwrap();
    fs::write(dir.path().join("b.toml"), "").unwrap();
    let two = gpulint(
        &[
            "check",
            "--config",
            "a.toml",
            "--config",
            "b.toml",
            "hazard.py",
        ],
        dir.path(),
    );
    assert_eq!(two.status.code(), Some(2));
    assert!(
        stderr(&two).contains("--config names two configuration files (a.toml and b.toml)"),
        "{}",
        stderr(&two)
    );
    let isolated = gpulint(
        &["check", "--isolated", "--config", "a.toml", "hazard.py"],
        dir.path(),
    );
    assert_eq!(isolated.status.code(), Some(2));
    assert!(
        stderr(&isolated).contains("--isolated reads no configuration file"),
        "{}",
        stderr(&isolated)
    );
}
