//! Exit statuses: clean, findings, usage errors, `--exit-zero`, `--quiet`, `--statistics`,
//! `--output-file`, the summary and `--fail-on`.

use super::*;

#[test]
fn exit_status_is_0_when_clean_1_with_findings_2_on_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("clean.py"), CLEAN).unwrap();
    let clean = gpulint(&["check", "clean.py"], dir.path());
    assert_eq!(clean.status.code(), Some(0), "{clean:?}");
    assert!(stdout(&clean).contains("All checks passed!"));

    fs::write(dir.path().join("hazard.py"), HAZARD).unwrap();
    let dirty = gpulint(&["check"], dir.path());
    assert_eq!(dirty.status.code(), Some(1), "{dirty:?}");

    let usage = gpulint(&["check", "--output-format", "yaml"], dir.path());
    assert_eq!(usage.status.code(), Some(2));
    let unknown_rule = gpulint(&["rule", "GPU777"], dir.path());
    assert_eq!(unknown_rule.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown_rule.stderr).contains("unknown rule `GPU777`"));
}

#[test]
fn exit_zero_quiet_statistics_and_output_file() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("hazard.py"), HAZARD).unwrap();
    fs::write(dir.path().join("again.py"), HAZARD).unwrap();

    let zero = gpulint(
        &["check", "--exit-zero", "-q", "--output-format", "concise"],
        dir.path(),
    );
    assert_eq!(zero.status.code(), Some(0));
    let text = stdout(&zero);
    assert_eq!(text.lines().count(), 2, "findings only, no summary: {text}");

    let stats = stdout(&gpulint(&["check", "--statistics"], dir.path()));
    assert_eq!(stats.trim(), "2\tGPU001\tfork-after-cuda-init", "{stats}");

    let to_file = gpulint(
        &[
            "check",
            "--output-format",
            "concise",
            "--output-file",
            "report.txt",
        ],
        dir.path(),
    );
    assert_eq!(to_file.status.code(), Some(1));
    assert!(stdout(&to_file).is_empty());
    let report = fs::read_to_string(dir.path().join("report.txt")).unwrap();
    assert!(report.contains("hazard.py:8:6: GPU001"), "{report}");
}

#[test]
fn info_findings_are_shown_but_fail_the_run_only_at_fail_on_info() {
    let dir = tempfile::tempdir().unwrap();
    // Order only: GPU015, info.
    let group = "import os\nimport torch\nimport torch.distributed as dist\n\n\ndef main():\n    dist.init_process_group(\"nccl\")\n    torch.cuda.set_device(int(os.environ[\"LOCAL_RANK\"]))\n\n\nif __name__ == \"__main__\":\n    main()\n";
    fs::write(dir.path().join("group.py"), group).unwrap();
    let code = |args: &[&str]| gpulint(args, dir.path()).status.code();

    let plain = gpulint(&["check", "."], dir.path());
    assert_eq!(plain.status.code(), Some(0), "{plain:?}");
    let text = stdout(&plain);
    assert!(text.contains("GPU015"), "{text}");
    assert!(
        text.contains("Found 1 finding (0 errors, 0 warnings, 1 info) in 1 file."),
        "{text}"
    );
    assert_eq!(code(&["check", "--fail-on", "info", "."]), Some(1));
    assert_eq!(code(&["check", "--fail-on", "warning", "."]), Some(0));

    // The configuration's `fail-on`; the command line wins over it.
    fs::write(dir.path().join("gpulint.toml"), "fail-on = \"info\"\n").unwrap();
    assert_eq!(code(&["check", "."]), Some(1));
    assert_eq!(code(&["check", "--fail-on", "error", "."]), Some(0));

    // A per-rule severity counts against `fail-on`: GPU015 raised to error fails at `error`.
    fs::write(
        dir.path().join("gpulint.toml"),
        "fail-on = \"error\"\n[severity]\nGPU015 = \"error\"\n",
    )
    .unwrap();
    assert_eq!(code(&["check", "."]), Some(1));
    // ...and a hazard lowered to warning passes at `error`.
    fs::write(dir.path().join("loader.py"), "import torch\nimport multiprocessing as mp\n\n\ndef work():\n    torch.ones(1).cuda()\n\n\ntorch.cuda.init()\nmp.Process(target=work).start()\n").unwrap();
    fs::write(
        dir.path().join("gpulint.toml"),
        "fail-on = \"error\"\n[severity]\nGPU001 = \"warning\"\n",
    )
    .unwrap();
    let lowered = gpulint(&["check", "--output-format", "concise", "."], dir.path());
    assert!(stdout(&lowered).contains("GPU001"), "{lowered:?}");
    assert_eq!(lowered.status.code(), Some(0), "{lowered:?}");

    // A bad value names the file and the key.
    fs::write(dir.path().join("gpulint.toml"), "fail-on = \"never\"\n").unwrap();
    let bad = gpulint(&["check", "."], dir.path());
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("gpulint.toml") && err.contains("fail-on `never`"),
        "{err}"
    );
}

#[test]
fn the_summary_counts_each_severity_and_fail_on_decides_the_exit_status() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(root.join("hazard.py"), HAZARD).unwrap();
    fs::write(root.join("group.py"), GROUP).unwrap();
    // GPU008 (warning): a device index from the global rank.
    fs::write(
        root.join("rank.py"),
        "import os\nimport torch\n\nif __name__ == \"__main__\":\n    torch.cuda.set_device(int(os.environ[\"RANK\"]))\n",
    )
    .unwrap();
    let out = gpulint(&["check", "--output-format", "concise", "."], root);
    let text = stdout(&out);
    assert!(
        text.contains("Found 3 findings (1 error, 1 warning, 1 info) in 3 files."),
        "{text}"
    );
    assert_eq!(out.status.code(), Some(1));
    let code = |args: &[&str]| gpulint(args, root).status.code();
    assert_eq!(
        code(&["check", "--fail-on", "error", "rank.py", "group.py"]),
        Some(0)
    );
    assert_eq!(
        code(&["check", "--fail-on", "warning", "rank.py", "group.py"]),
        Some(1)
    );
    assert_eq!(
        code(&["check", "--fail-on", "warning", "group.py"]),
        Some(0)
    );
    assert_eq!(code(&["check", "--fail-on", "info", "group.py"]), Some(1));
    assert_eq!(
        code(&["check", "--fail-on", "error", "--exit-zero", "hazard.py"]),
        Some(0)
    );
}
