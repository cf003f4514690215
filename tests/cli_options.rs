//! Command-line options and output details users meet first: `--exclude` and `--extend-exclude`,
//! `--config KEY = VALUE`, the severity and the fixable mark in the human formats, `cell` and
//! `url` in JSON, notebook findings located in the `.ipynb` file for annotations, syntax errors in
//! files that reach no GPU library, and the toolchain the build needs.

mod common;

use std::fs;
use std::path::Path;

use common::*;

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A fork after CUDA was initialised: one GPU001 (an error, with no fix) on line 8.
const HAZARD: &str = "import torch\nimport multiprocessing as mp\n\ndef work(x):\n    return x.cuda()\n\nmodel = torch.nn.Linear(2, 2).cuda()\nwith mp.Pool(2) as pool:\n    pool.map(work, [torch.ones(2)])\n";

/// The device bound right after the process group: one GPU015 (an info, with a safe fix).
const INFO: &str = "import os\nimport torch\nimport torch.distributed as dist\n\n\ndef main():\n    local_rank = int(os.environ[\"LOCAL_RANK\"])\n    dist.init_process_group(backend=\"nccl\")\n    torch.cuda.set_device(local_rank)\n    x = torch.ones(2, device=\"cuda\")\n    dist.all_reduce(x)\n\n\nif __name__ == \"__main__\":\n    main()\n";

/// A corpus case whose GPU001 has an unsafe fix (a DataLoader started by spawn instead).
fn unsafe_fix_case() -> String {
    fs::read_to_string(root().join("corpus/gpu001/pos_collate_fn_cuda.py")).unwrap()
}

/// The files a `--show-files` run in `dir` lists.
fn shown_files(args: &[&str], dir: &Path) -> Vec<String> {
    let mut all = vec!["check", "--show-files"];
    all.extend_from_slice(args);
    let out = gpulint(&all, dir);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    stdout(&out).lines().map(str::to_string).collect()
}

/// A project with a hazard in `app.py`, `vendor/lib.py` and `gen/api.py`, whose configuration
/// excludes `vendor` and extends the exclusion to `*_pb2.py`.
fn excluded_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for path in ["app.py", "vendor/lib.py", "gen/api.py", "gen/api_pb2.py"] {
        let file = dir.path().join(path);
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(file, HAZARD).unwrap();
    }
    fs::write(
        dir.path().join("gpulint.toml"),
        "exclude = [\"vendor\"]\nextend-exclude = [\"*_pb2.py\"]\n",
    )
    .unwrap();
    dir
}

#[test]
fn exclude_replaces_the_configured_list_and_extend_exclude_adds_to_it() {
    let dir = excluded_project();
    let root = dir.path();
    assert_eq!(shown_files(&["."], root), ["app.py", "gen/api.py"]);
    // `--exclude` replaces `exclude` (vendor is back); the configuration's `extend-exclude` stays.
    assert_eq!(
        shown_files(&["--exclude", "gen", "."], root),
        ["app.py", "vendor/lib.py"]
    );
    // An empty `--exclude` list replaces it with nothing.
    assert_eq!(
        shown_files(&["--exclude=", "."], root),
        ["app.py", "gen/api.py", "vendor/lib.py"]
    );
    // `--extend-exclude` adds to both: comma-separated, or repeated.
    assert_eq!(
        shown_files(&["--extend-exclude", "gen", "."], root),
        ["app.py"]
    );
    for args in [
        &["--extend-exclude", "gen,app.py", "."][..],
        &["--extend-exclude", "gen", "--extend-exclude", "app.py", "."],
    ] {
        assert_eq!(shown_files(args, root), Vec::<String>::new(), "{args:?}");
    }
    let nothing = gpulint(&["check", "--extend-exclude", "gen,app.py", "."], root);
    assert_eq!(nothing.status.code(), Some(0), "{}", stderr(&nothing));
    assert!(stdout(&nothing).contains("No Python files or notebooks found under ."));

    // The findings follow: `--exclude gen` reports app.py and vendor/lib.py.
    let out = gpulint(
        &[
            "check",
            "--output-format",
            "concise",
            "--exclude",
            "gen",
            ".",
        ],
        root,
    );
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let files: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split_once(':').map(|(file, _)| file))
        .filter(|f| f.ends_with(".py"))
        .collect();
    assert_eq!(files, ["app.py", "vendor/lib.py"], "{text}");

    // `--show-settings` says whether the command line's patterns exclude a file.
    let settings = stdout(&gpulint(
        &[
            "check",
            "--show-settings",
            "--extend-exclude",
            "app.py",
            "app.py",
        ],
        root,
    ));
    assert!(settings.contains("excluded = true"), "{settings}");
}

#[test]
fn command_line_patterns_are_relative_to_the_working_directory() {
    let dir = excluded_project();
    let root = dir.path();
    // A pattern with a `/` is anchored at the working directory, not at the configuration.
    assert_eq!(
        shown_files(&["--extend-exclude", "gen/*.py", "."], root),
        ["app.py"]
    );
    let gen = root.join("gen");
    assert_eq!(
        shown_files(&["--extend-exclude", "gen/*.py", "."], &gen),
        ["api.py"],
        "from gen/, `gen/*.py` names nothing"
    );
    assert_eq!(
        shown_files(&["--extend-exclude", "*.py", "."], &gen),
        Vec::<String>::new()
    );
}

#[test]
fn a_file_named_on_the_command_line_is_excluded_only_with_force_exclude() {
    let dir = excluded_project();
    let root = dir.path();
    let named = gpulint(&["check", "--extend-exclude", "app.py", "app.py"], root);
    assert_eq!(named.status.code(), Some(1), "{}", stdout(&named));
    let forced = gpulint(
        &[
            "check",
            "--force-exclude",
            "--extend-exclude",
            "app.py",
            "app.py",
        ],
        root,
    );
    assert_eq!(forced.status.code(), Some(0), "{}", stdout(&forced));
}

#[test]
fn a_bad_exclude_pattern_is_a_usage_error_that_names_the_flag() {
    let dir = excluded_project();
    for flag in ["--exclude", "--extend-exclude"] {
        let out = gpulint(&["check", flag, "a[", "."], dir.path());
        assert_eq!(out.status.code(), Some(2), "{flag}");
        let err = stderr(&out);
        assert!(
            err.contains(&format!("{flag}: `a[` is not a glob")),
            "{flag}: {err}"
        );
    }
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

#[test]
fn concise_output_shows_each_findings_severity_and_fixable_mark() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("hazard.py"), HAZARD).unwrap();
    fs::write(dir.path().join("loader.py"), unsafe_fix_case()).unwrap();
    fs::write(dir.path().join("ranks.py"), INFO).unwrap();
    let out = gpulint(&["check", "--output-format", "concise", "."], dir.path());
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("hazard.py:8:6: GPU001 [error] This pool starts"),
        "{text}"
    );
    // An unsafe fix is not marked: `--fix` alone does not apply it.
    assert!(lines[1].contains(": GPU001 [error] This "), "{text}");
    // A safe fix: `--fix` applies it.
    assert!(
        lines[2].starts_with("ranks.py:8:5: GPU015 [info] [*] "),
        "{text}"
    );
    // An info alone does not fail the run, and says so by its severity.
    let info = gpulint(
        &["check", "--output-format", "concise", "ranks.py"],
        dir.path(),
    );
    assert_eq!(info.status.code(), Some(0));
    assert!(
        stdout(&info).contains(" GPU015 [info] "),
        "{}",
        stdout(&info)
    );
    // An unsafe fix is marked once `--unsafe-fixes` makes `--fix` apply it.
    let unsafe_ = stdout(&gpulint(
        &[
            "check",
            "--output-format",
            "concise",
            "--unsafe-fixes",
            "loader.py",
        ],
        dir.path(),
    ));
    assert!(unsafe_.contains(" GPU001 [error] [*] "), "{unsafe_}");
}

#[test]
fn full_output_marks_fixable_findings_and_counts_them() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("loader.py"), unsafe_fix_case()).unwrap();
    fs::write(dir.path().join("ranks.py"), INFO).unwrap();
    let text = stdout(&gpulint(&["check", "."], dir.path()));
    assert!(
        text.contains("[GPU015 set-device-after-process-group] Advice: [*] "),
        "{text}"
    );
    assert!(
        text.contains("[GPU001 fork-after-cuda-init] Error: This "),
        "the unsafe fix is not marked: {text}"
    );
    assert!(
        text.contains("[*] 1 fixable with the `--fix` option (1 hidden fix can be enabled with the `--unsafe-fixes` option).\n"),
        "{text}"
    );
    let both = stdout(&gpulint(&["check", "--unsafe-fixes", "."], dir.path()));
    assert!(
        both.contains("[GPU001 fork-after-cuda-init] Error: [*] This "),
        "{both}"
    );
    assert!(
        both.contains("[*] 2 fixable with the `--fix` option.\n"),
        "{both}"
    );
    assert!(!both.contains("hidden fix"), "{both}");
}

#[test]
fn json_writes_cell_null_for_scripts_and_no_relative_url() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("hazard.py"), HAZARD).unwrap();
    let out = gpulint(&["check", "--output-format", "json", "."], dir.path());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = json[0].as_object().unwrap();
    assert!(d["cell"].is_null(), "{d:?}");
    for related in d["related"].as_array().unwrap() {
        assert!(related.as_object().unwrap()["cell"].is_null(), "{related}");
    }
    // The rule's documentation as an absolute address, or null while the project names no
    // repository to link to: never a path that means nothing where the report is read.
    match &d["url"] {
        serde_json::Value::Null => {}
        serde_json::Value::String(url) => assert!(url.starts_with("https://"), "{url}"),
        other => panic!("url: {other}"),
    }
    // The same in JSON lines.
    let lines = gpulint(&["check", "--output-format", "json-lines", "."], dir.path());
    let first: serde_json::Value =
        serde_json::from_str(stdout(&lines).lines().next().unwrap()).unwrap();
    assert!(first.as_object().unwrap()["cell"].is_null(), "{first}");
}

/// The 1-based line and column of the `.ipynb` file where `needle` is written.
fn line_col_in(raw: &str, needle: &str) -> (u64, u64) {
    let at = raw.find(needle).unwrap_or_else(|| panic!("{needle:?}"));
    let line = raw[..at].matches('\n').count() as u64 + 1;
    let start = raw[..at].rfind('\n').map_or(0, |i| i + 1);
    (line, raw[start..at].chars().count() as u64 + 1)
}

/// The `key=value` properties of a GitHub workflow command line.
fn property<'a>(command: &'a str, key: &str) -> &'a str {
    let props = command.split("::").nth(1).unwrap();
    props
        .split(',')
        .find_map(|p| p.strip_prefix(&format!("{key}=")))
        .unwrap_or_else(|| panic!("{key} in {command}"))
}

#[test]
fn notebook_annotations_point_at_the_line_of_the_ipynb_file() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = "gpu001/pos_notebook_model_cuda_then_pool.ipynb";
    let raw = fs::read_to_string(root().join("corpus").join(fixture)).unwrap();
    fs::write(dir.path().join("pool.ipynb"), &raw).unwrap();
    // The fork is `mp.Pool(4)` on line 2 of cell 5; the file writes it on a line of its own.
    let (line, column) = line_col_in(&raw, "mp.Pool(4)");
    assert!(
        line > 50,
        "the fixture's cell 5 is far down the file: {line}"
    );
    let (end_line, end_column) = line_col_in(&raw, " as pool:");

    let github = stdout(&gpulint(
        &["check", "--output-format", "github", "pool.ipynb"],
        dir.path(),
    ));
    let command = github.lines().next().unwrap();
    assert!(command.starts_with("::error file=pool.ipynb,"), "{github}");
    assert_eq!(property(command, "line"), line.to_string(), "{command}");
    assert_eq!(property(command, "col"), column.to_string(), "{command}");
    assert_eq!(property(command, "endLine"), end_line.to_string());
    assert_eq!(property(command, "endColumn"), end_column.to_string());
    // The message still says where in the notebook, as users count it.
    assert!(
        command.contains("::pool.ipynb:cell 5:2:6: GPU001 "),
        "{command}"
    );

    let sarif: serde_json::Value = serde_json::from_slice(
        &gpulint(
            &["check", "--output-format", "sarif", "pool.ipynb"],
            dir.path(),
        )
        .stdout,
    )
    .unwrap();
    let result = &sarif["runs"][0]["results"][0];
    let region = &result["locations"][0]["physicalLocation"]["region"];
    assert_eq!(region["startLine"], line);
    assert_eq!(region["startColumn"], column);
    assert_eq!(region["endLine"], end_line);
    assert_eq!(
        region["properties"],
        serde_json::json!({"cell": 5, "cellLine": 2, "cellColumn": 6})
    );
    // Related locations too: CUDA was initialised in cell 3 (`.cuda()` on its first line).
    let related = &result["relatedLocations"];
    let init = related
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["physicalLocation"]["region"])
        .find(|r| r["properties"]["cell"] == 3)
        .expect("a related location in cell 3");
    let (init_line, _) = line_col_in(&raw, "encoder = torch.nn.Linear(64, 16).cuda()");
    assert_eq!(init["startLine"], init_line);

    let gitlab: serde_json::Value = serde_json::from_slice(
        &gpulint(
            &["check", "--output-format", "gitlab", "pool.ipynb"],
            dir.path(),
        )
        .stdout,
    )
    .unwrap();
    assert_eq!(gitlab[0]["location"]["lines"]["begin"], line);
    assert!(
        gitlab[0]["description"]
            .as_str()
            .unwrap()
            .ends_with("(cell 5, line 2)"),
        "{gitlab}"
    );
}

#[test]
fn a_notebook_whose_source_is_one_string_is_located_on_that_line() {
    let dir = tempfile::tempdir().unwrap();
    let notebook = serde_json::json!({
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": "# Notes é"},
            {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null,
             "source": "import multiprocessing as mp\nimport torch\n\ndef work(x):\n    return x.cuda()\n"},
            {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null,
             "source": "model = torch.nn.Linear(2, 2).cuda()\nwith mp.Pool(2) as pool:\n    pool.map(work, [torch.ones(2)])\n"},
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5
    });
    let raw = serde_json::to_string_pretty(&notebook).unwrap();
    fs::write(dir.path().join("one.ipynb"), &raw).unwrap();
    let github = stdout(&gpulint(
        &["check", "--output-format", "github", "one.ipynb"],
        dir.path(),
    ));
    let command = github.lines().next().unwrap();
    let (line, column) = line_col_in(&raw, "mp.Pool(2)");
    assert_eq!(property(command, "line"), line.to_string(), "{command}");
    assert_eq!(property(command, "col"), column.to_string(), "{command}");
    assert!(
        command.contains("one.ipynb:cell 3:2:6: GPU001"),
        "{command}"
    );
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

#[test]
fn the_readme_names_the_rust_version_every_crate_declares() {
    let manifest: toml::Table = fs::read_to_string(root().join("Cargo.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let version = manifest["workspace"]["package"]["rust-version"]
        .as_str()
        .expect("the workspace declares its rust-version");
    let members = manifest["workspace"]["members"].as_array().unwrap();
    for member in members.iter().map(|m| m.as_str().unwrap()) {
        let crate_manifest: toml::Table =
            fs::read_to_string(root().join(member).join("Cargo.toml"))
                .unwrap()
                .parse()
                .unwrap();
        let declared = crate_manifest["package"].get("rust-version");
        assert_eq!(
            declared
                .and_then(|v| v.get("workspace"))
                .and_then(|w| w.as_bool()),
            Some(true),
            "{member}: rust-version.workspace = true"
        );
    }
    assert_eq!(
        manifest["package"]["rust-version"]["workspace"].as_bool(),
        Some(true)
    );
    let readme = fs::read_to_string(root().join("README.md")).unwrap();
    assert!(
        readme.contains(&format!("Rust {version} or later")),
        "README names the toolchain the build needs ({version})"
    );
}
