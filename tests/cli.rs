//! The command line as users meet it: exit statuses, formats, bad input, rule docs.

mod common;

use std::fs;

use common::*;

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

const HAZARD: &str = "import torch\nimport multiprocessing as mp\n\ndef work(x):\n    return x.cuda()\n\nmodel = torch.nn.Linear(2, 2).cuda()\nwith mp.Pool(2) as pool:\n    pool.map(work, [torch.ones(2)])\n";
const CLEAN: &str = "import torch\n\nmodel = torch.nn.Linear(2, 2).cuda()\nprint(model)\n";

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
fn concise_output_is_one_line_per_finding() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("hazard.py"), HAZARD).unwrap();
    let out = stdout(&gpulint(
        &["check", "--output-format", "concise", "hazard.py"],
        dir.path(),
    ));
    let first = out.lines().next().unwrap();
    assert!(first.starts_with("hazard.py:8:6: GPU001 "), "{out}");
    assert!(
        out.contains("Found 1 finding (1 error, 0 warnings) in 1 file."),
        "{out}"
    );
}

#[test]
fn json_output_has_ruffs_fields_and_related_locations() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("hazard.py"), HAZARD).unwrap();
    let out = gpulint(
        &["check", "--output-format", "json", "hazard.py"],
        dir.path(),
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = &json[0];
    assert_eq!(d["code"], "GPU001");
    assert_eq!(d["name"], "fork-after-cuda-init");
    assert_eq!(d["severity"], "error");
    assert_eq!(d["location"], serde_json::json!({"row": 8, "column": 6}));
    assert_eq!(
        d["end_location"],
        serde_json::json!({"row": 8, "column": 16})
    );
    assert_eq!(d["noqa_row"], 8);
    assert!(d["fix"].is_null());
    // No absolute address for the rule reference while Cargo.toml names no repository.
    assert!(d["url"].is_null(), "{d}");
    assert!(d["cell"].is_null(), "{d}");
    assert!(std::path::Path::new(d["filename"].as_str().unwrap()).is_absolute());
    let related = d["related"].as_array().unwrap();
    assert_eq!(related[0]["location"]["row"], 7, "the CUDA initialisation");
    assert_eq!(related[1]["location"]["row"], 5, "the child's CUDA use");
}

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
fn gitignored_and_environment_folders_are_skipped() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join(".venv/lib")).unwrap();
    fs::create_dir_all(dir.path().join("build")).unwrap();
    fs::write(dir.path().join(".venv/lib/hazard.py"), HAZARD).unwrap();
    fs::write(dir.path().join("build/hazard.py"), HAZARD).unwrap();
    fs::write(dir.path().join(".gitignore"), "build/\n").unwrap();
    fs::create_dir(dir.path().join(".git")).unwrap();
    fs::write(dir.path().join("main.py"), CLEAN).unwrap();
    let out = gpulint(&["check", "."], dir.path());
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

#[test]
fn rule_prints_its_docs_and_rules_lists_every_rule() {
    let dir = tempfile::tempdir().unwrap();
    let doc = stdout(&gpulint(&["rule", "GPU003"], dir.path()));
    assert!(
        doc.starts_with("# process-group-before-set-device (GPU003)"),
        "{doc}"
    );
    for section in [
        "## What it does",
        "## Why is this bad?",
        "## When it is not a bug",
        "## Example",
        "Use instead:",
        "## Fix",
        "## References",
    ] {
        assert!(doc.contains(section), "missing {section}");
    }
    let list = stdout(&gpulint(&["rules"], dir.path()));
    for code in ["GPU001", "GPU002", "GPU003", "GPU999"] {
        assert!(list.contains(code), "{list}");
    }
}

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

/// `main.py` forks a pool whose function, in `app/engine.py`, uses a model that module put on CUDA
/// when it was imported.
fn write_cross_module_project(root: &std::path::Path) {
    fs::create_dir(root.join("app")).unwrap();
    fs::write(root.join("app/__init__.py"), "").unwrap();
    fs::write(
        root.join("app/engine.py"),
        "import torch\n\nnet = torch.nn.Linear(2, 2).cuda()\n\ndef run(x):\n    return net(x)\n",
    )
    .unwrap();
    fs::write(
        root.join("main.py"),
        "import multiprocessing as mp\nfrom app.engine import run\n\nwith mp.Pool(2) as pool:\n    pool.map(run, [1])\n",
    )
    .unwrap();
}

#[test]
fn a_finding_caused_by_another_module_points_into_it() {
    let dir = tempfile::tempdir().unwrap();
    write_cross_module_project(dir.path());
    // Only main.py is named: app/engine.py is still read, as an import.
    let out = gpulint(&["check", "--output-format", "json", "main.py"], dir.path());
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = &json[0];
    assert!(d["filename"].as_str().unwrap().ends_with("main.py"));
    assert_eq!(d["location"]["row"], 4);
    let related: Vec<(String, u64)> = d["related"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["filename"].as_str().unwrap().to_string(),
                r["location"]["row"].as_u64().unwrap(),
            )
        })
        .collect();
    assert!(
        related
            .iter()
            .any(|(f, row)| f.ends_with("app/engine.py") && *row == 3),
        "CUDA initialised at import of app.engine: {related:?}"
    );
    assert!(
        related
            .iter()
            .any(|(f, row)| f.ends_with("app/engine.py") && *row == 6),
        "the child's use in app.engine.run: {related:?}"
    );

    // Without the import, nothing initialises CUDA before the pool.
    fs::write(
        dir.path().join("app/engine.py"),
        "import torch\n\ndef run(x):\n    return torch.nn.Linear(2, 2).cuda()(x)\n",
    )
    .unwrap();
    let out = gpulint(&["check", "main.py"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

/// A checked file no module imports (a leaf) is parsed by its own analysis, once. Its functions
/// have no callers outside it; the names it reads still count for the modules it imports.
#[test]
fn a_leaf_calls_into_the_modules_it_imports_and_nothing_calls_into_it() {
    let dir = tempfile::tempdir().unwrap();
    let setup = "import torch\nimport torch.distributed as dist\n\n\ndef setup():\n    dist.init_process_group(\"nccl\")\n    return torch.ones(1).cuda()\n";
    // Two leaves and a helper module: `setup` is defined in `solo.py` and in `helpers.py`.
    fs::write(dir.path().join("solo.py"), setup).unwrap();
    fs::write(dir.path().join("helpers.py"), setup).unwrap();
    fs::write(
        dir.path().join("train.py"),
        "import torch\nfrom helpers import setup\n\n\ndef main():\n    torch.cuda.set_device(0)\n    setup()\n",
    )
    .unwrap();
    let out = gpulint(&["check", "--output-format", "concise", "."], dir.path());
    let text = stdout(&out);
    // `train.py` calls `helpers.setup` after binding the device: judged in that context, not as an
    // entry point of its own. Nothing can call `solo.setup`, whatever names `train.py` reads.
    assert!(text.contains("solo.py:6:5: GPU003"), "{text}");
    assert!(!text.contains("helpers.py"), "{text}");
    assert_eq!(out.status.code(), Some(1), "{text}");
}

/// `from. engine import run` (no space before the dot) is a relative import: the scan that decides
/// which files are analysed, and through which a leaf resolves its imports, reads it as one.
#[test]
fn a_relative_import_written_without_a_space_is_followed() {
    let dir = tempfile::tempdir().unwrap();
    write_cross_module_project(dir.path());
    fs::rename(dir.path().join("main.py"), dir.path().join("app/main.py")).unwrap();
    let main = fs::read_to_string(dir.path().join("app/main.py")).unwrap();
    fs::write(
        dir.path().join("app/main.py"),
        main.replace("from app.engine import", "from. engine import"),
    )
    .unwrap();
    let out = gpulint(
        &["check", "--output-format", "concise", "app/main.py"],
        dir.path(),
    );
    let text = stdout(&out);
    assert!(text.contains("app/main.py:4:6: GPU001"), "{text}");
}

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
fn json_lines_and_github_formats() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("hazard.py"), HAZARD).unwrap();
    let lines = stdout(&gpulint(
        &["check", "--output-format", "json-lines", "hazard.py"],
        dir.path(),
    ));
    let objects: Vec<serde_json::Value> = lines
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    assert_eq!(objects.len(), 1);
    assert_eq!(objects[0]["code"], "GPU001");
    assert_eq!(objects[0]["location"]["row"], 8);

    let github = stdout(&gpulint(
        &["check", "--output-format", "github", "hazard.py"],
        dir.path(),
    ));
    assert!(
        github.starts_with(
            "::error file=hazard.py,line=8,col=6,endLine=8,endColumn=16,title=gpulint (GPU001 fork-after-cuda-init)::hazard.py:8:6: GPU001 "
        ),
        "{github}"
    );
    assert_eq!(github.lines().count(), 1, "no summary line: {github}");
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
fn docs_rules_md_is_fresh() {
    let generated = stdout(&gpulint(&["rules", "--output-format", "markdown"], &root()));
    let committed = fs::read_to_string(root().join("docs/rules.md")).expect("docs/rules.md exists");
    assert!(
        generated == committed,
        "docs/rules.md is stale: run `cargo run -- rules --output-format markdown > docs/rules.md`"
    );
    for rule in ["GPU001", "GPU002", "GPU003", "GPU015", "GPU999"] {
        assert!(committed.contains(&format!("\n## {rule}\n")), "{rule}");
    }
}

#[test]
fn readme_rule_table_is_the_generated_index() {
    let generated = stdout(&gpulint(&["rules", "--output-format", "markdown"], &root()));
    let index = generated.split("\n## ").next().unwrap_or_default();
    let table: Vec<String> = index
        .lines()
        .filter(|l| l.starts_with('|'))
        .map(|l| l.replace("](#", "](docs/rules.md#"))
        .collect();
    assert!(table.len() > 3, "{generated}");
    let readme = fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme
        .find("<!-- rules-table:")
        .expect("README marks the rule table");
    let end = readme
        .find("<!-- rules-table: end -->")
        .expect("README ends the rule table");
    let committed: Vec<&str> = readme[start..end].lines().skip(1).collect();
    assert!(
        committed == table,
        "README's rule table is stale; it should read:\n{}",
        table.join("\n")
    );
}

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
fn gitlab_fingerprints_survive_unrelated_edits() {
    let dir = tempfile::tempdir().unwrap();
    let report = |text: &str| -> Vec<(String, u64)> {
        fs::write(dir.path().join("hazard.py"), text).unwrap();
        let out = gpulint(
            &["check", "--output-format", "gitlab", "hazard.py"],
            dir.path(),
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v.as_array()
            .unwrap()
            .iter()
            .map(|i| {
                assert_eq!(i["location"]["path"], "hazard.py");
                (
                    i["fingerprint"].as_str().unwrap().to_string(),
                    i["location"]["lines"]["begin"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    let before = report(HAZARD);
    let after = report(&format!("# a new comment\n\n{HAZARD}"));
    assert_eq!(before.len(), 1);
    assert_eq!(before[0].0, after[0].0, "same finding, same fingerprint");
    assert_eq!(after[0].1, before[0].1 + 2, "it moved two lines down");
    let twice = report(&format!(
        "{HAZARD}{}",
        &HAZARD[HAZARD.find("with").unwrap()..]
    ));
    assert_eq!(twice.len(), 2);
    assert_ne!(
        twice[0].0, twice[1].0,
        "identical lines get distinct fingerprints"
    );
}

fn sarif_validator() -> jsonschema::Validator {
    let schema: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(root().join("tests/data/sarif-schema-2.1.0.json")).unwrap(),
    )
    .unwrap();
    jsonschema::validator_for(&schema).expect("the schema compiles")
}

fn assert_valid_sarif(validator: &jsonschema::Validator, sarif: &serde_json::Value) {
    let errors: Vec<String> = validator
        .iter_errors(sarif)
        .map(|e| format!("{e} at {}", e.instance_path))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn sarif_output_validates_against_the_sarif_2_1_0_schema() {
    let dir = tempfile::tempdir().unwrap();
    write_cross_module_project(dir.path());
    let out = gpulint(&["check", "--output-format", "sarif", "."], dir.path());
    assert_eq!(out.status.code(), Some(1));
    let sarif: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let validator = sarif_validator();
    assert_valid_sarif(&validator, &sarif);
    // The validator does reject what the schema forbids.
    let mut broken = sarif.clone();
    broken["runs"][0]["results"][0]["level"] = serde_json::json!("fatal");
    assert!(!validator.is_valid(&broken));
    // So does it a helpUri that is not an absolute URI, and an unencoded space in a location.
    let mut broken = sarif.clone();
    broken["runs"][0]["tool"]["driver"]["rules"][0]["helpUri"] =
        serde_json::json!("docs/rules.md#gpu001");
    assert!(!validator.is_valid(&broken));
    let mut broken = sarif.clone();
    broken["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
        ["uri"] = serde_json::json!("a b.py");
    assert!(!validator.is_valid(&broken));

    let run = &sarif["runs"][0];
    // Every rule gpulint knows is described, whatever their number.
    let known: serde_json::Value =
        serde_json::from_slice(&gpulint(&["rules", "--output-format", "json"], dir.path()).stdout)
            .expect("rules as JSON");
    let codes = |rules: &serde_json::Value, key: &str| -> Vec<String> {
        let mut codes: Vec<String> = rules
            .as_array()
            .expect("an array")
            .iter()
            .map(|r| r[key].as_str().expect("a code").to_string())
            .collect();
        codes.sort();
        codes
    };
    assert_eq!(
        codes(&run["tool"]["driver"]["rules"], "id"),
        codes(&known, "code")
    );
    let result = &run["results"][0];
    assert_eq!(result["ruleId"], "GPU001");
    assert_eq!(result["level"], "error");
    let location = &result["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], "main.py");
    assert_eq!(location["artifactLocation"]["uriBaseId"], "%SRCROOT%");
    assert_eq!(location["region"]["startLine"], 4);
    let related: Vec<&str> = result["relatedLocations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            l["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert!(related.contains(&"app/engine.py"), "{related:?}");
    assert!(result["partialFingerprints"]["gpulintFingerprint/v1"].is_string());
}

#[test]
fn sarif_uris_are_percent_encoded_and_files_outside_the_working_directory_absolute() {
    let dir = tempfile::tempdir().unwrap();
    let inner = dir.path().join("repo");
    fs::create_dir_all(inner.join("my dir#2")).unwrap();
    fs::write(inner.join("my dir#2/a b.py"), HAZARD).unwrap();
    fs::write(dir.path().join("outside.py"), HAZARD).unwrap();
    let out = gpulint(
        &["check", "--output-format", "sarif", ".", "../outside.py"],
        &inner,
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let sarif: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_valid_sarif(&sarif_validator(), &sarif);
    let run = &sarif["runs"][0];
    // gpulint counts columns in characters.
    assert_eq!(run["columnKind"], "unicodeCodePoints");
    let locations: Vec<&serde_json::Value> = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["locations"][0]["physicalLocation"]["artifactLocation"])
        .collect();
    assert_eq!(locations.len(), 2);
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let outside = format!("file://{}/outside.py", base.display());
    assert_eq!(locations[0]["uri"], outside.as_str(), "{locations:?}");
    assert!(locations[0].get("uriBaseId").is_none(), "{locations:?}");
    assert_eq!(locations[1]["uri"], "my%20dir%232/a%20b.py");
    assert_eq!(locations[1]["uriBaseId"], "%SRCROOT%");
    let root_uri = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
        .as_str()
        .unwrap();
    assert!(
        root_uri.starts_with("file:///") && root_uri.ends_with("/repo/"),
        "{root_uri}"
    );
}

#[test]
fn no_format_prints_dot_slash_paths() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("pkg")).unwrap();
    fs::write(dir.path().join("pkg/hazard.py"), HAZARD).unwrap();
    for target in [".", "./pkg", "./pkg/hazard.py"] {
        for format in ["full", "concise", "github", "gitlab", "junit", "sarif"] {
            let text = stdout(&gpulint(
                &["check", "--output-format", format, target],
                dir.path(),
            ));
            assert!(text.contains("pkg/hazard.py"), "{format} {target}: {text}");
            assert!(!text.contains("./pkg"), "{format} {target}: {text}");
        }
    }
    let github = stdout(&gpulint(
        &["check", "--output-format", "github", "."],
        dir.path(),
    ));
    assert!(
        github.starts_with("::error file=pkg/hazard.py,line=8,"),
        "{github}"
    );
}

#[test]
fn junit_output_is_well_formed_xml_with_a_case_per_finding() {
    use quick_xml::events::Event;
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("pkg")).unwrap();
    fs::write(dir.path().join("pkg/a.py"), HAZARD).unwrap();
    fs::write(dir.path().join("b.py"), HAZARD).unwrap();
    let xml = gpulint(&["check", "--output-format", "junit", "."], dir.path()).stdout;
    let mut reader = quick_xml::Reader::from_reader(xml.as_slice());
    let (mut suites, mut cases, mut failures) = (Vec::new(), 0, 0);
    let mut buf = Vec::new();
    loop {
        match reader.read_event_into(&mut buf).expect("well-formed XML") {
            Event::Start(e) | Event::Empty(e) => match e.name().as_ref() {
                b"testsuite" => {
                    let name = e.try_get_attribute("name").unwrap().unwrap();
                    suites.push(String::from_utf8(name.value.to_vec()).unwrap());
                }
                b"testcase" => cases += 1,
                b"failure" => failures += 1,
                _ => {}
            },
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    assert_eq!(suites, ["b.py", "pkg/a.py"]);
    assert_eq!((cases, failures), (2, 2));

    fs::write(dir.path().join("b.py"), CLEAN).unwrap();
    fs::write(dir.path().join("pkg/a.py"), CLEAN).unwrap();
    let clean = gpulint(&["check", "--output-format", "junit", "."], dir.path());
    assert_eq!(clean.status.code(), Some(0));
    assert!(stdout(&clean).contains("<testcase name=\"No findings\"/>"));
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
fn fix_applies_safe_fixes_diff_shows_them_and_unsafe_ones_wait_for_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let group = "import os\nimport torch\nimport torch.distributed as dist\n\n\ndef main():\n    dist.init_process_group(\"nccl\")\n    torch.cuda.set_device(int(os.environ[\"LOCAL_RANK\"]))\n    return torch.ones(1).cuda()\n\n\nif __name__ == \"__main__\":\n    main()\n";
    let loader = "import torch\nfrom torch.utils.data import DataLoader\n\n\nclass Frames(torch.utils.data.Dataset):\n    def __len__(self):\n        return 8\n\n    def __getitem__(self, i):\n        return torch.zeros(2).cuda()\n\n\nif __name__ == \"__main__\":\n    model = torch.nn.Linear(2, 2).cuda()\n    for batch in DataLoader(Frames(), num_workers=2):\n        model(batch)\n";
    fs::write(dir.path().join("group.py"), group).unwrap();
    fs::write(dir.path().join("loader.py"), loader).unwrap();

    // --diff shows the safe fix and writes nothing.
    let diff = gpulint(&["check", "--diff", "."], dir.path());
    assert_eq!(diff.status.code(), Some(1));
    let text = stdout(&diff);
    assert!(text.contains("-    torch.cuda.set_device"), "{text}");
    assert!(text.contains("+    torch.cuda.set_device"), "{text}");
    assert!(!text.contains("multiprocessing_context"), "unsafe: {text}");
    assert_eq!(
        fs::read_to_string(dir.path().join("group.py")).unwrap(),
        group
    );

    // --fix moves set_device above the group; the GPU015 finding is gone, GPU001 stays.
    let fixed = gpulint(
        &["check", "--fix", "--output-format", "concise", "."],
        dir.path(),
    );
    let report = stdout(&fixed);
    assert!(report.contains("Fixed 1 finding."), "{report}");
    assert!(!report.contains("GPU015"), "{report}");
    assert!(report.contains("loader.py"), "{report}");
    let new = fs::read_to_string(dir.path().join("group.py")).unwrap();
    let bind = new.find("torch.cuda.set_device").unwrap();
    assert!(bind < new.find("init_process_group").unwrap(), "{new}");

    // The unsafe fix needs --unsafe-fixes.
    let fixed = gpulint(
        &[
            "check",
            "--fix",
            "--unsafe-fixes",
            "--output-format",
            "concise",
            ".",
        ],
        dir.path(),
    );
    assert_eq!(fixed.status.code(), Some(0), "{}", stdout(&fixed));
    let new = fs::read_to_string(dir.path().join("loader.py")).unwrap();
    assert!(
        new.contains("DataLoader(Frames(), num_workers=2, multiprocessing_context=\"spawn\")"),
        "{new}"
    );
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

const RUST_HAZARD: &str = "use cudarc::driver::CudaContext;\nuse nix::unistd::{fork, ForkResult};\n\nfn main() {\n    let ctx = CudaContext::new(0).unwrap();\n    if let Ok(ForkResult::Child) = unsafe { fork() } {\n        let _ = ctx.default_stream();\n    }\n}\n";

#[test]
fn rust_files_are_checked_unless_excluded_and_target_folders_are_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir_all(root.join("src")).unwrap();
    fs::create_dir_all(root.join("target/debug/build")).unwrap();
    fs::create_dir_all(root.join("vendor")).unwrap();
    fs::write(root.join("Cargo.toml"), "[package]\nname = \"k\"\n").unwrap();
    fs::write(root.join("src/main.rs"), RUST_HAZARD).unwrap();
    fs::write(root.join("target/debug/build/out.rs"), RUST_HAZARD).unwrap();
    fs::write(root.join("vendor/copy.rs"), RUST_HAZARD).unwrap();
    fs::write(root.join("gpulint.toml"), "extend-exclude = [\"vendor\"]\n").unwrap();
    let out = gpulint(&["check", "--output-format", "concise", "."], root);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(text.contains("src/main.rs:6:45: GPU101"), "{text}");
    assert!(
        !text.contains("target") && !text.contains("vendor"),
        "{text}"
    );
}

#[test]
fn a_rust_syntax_error_is_gpu999_on_its_line_and_noqa_comments_apply() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("bad.rs"), "fn main() {\n    let x = ;\n}\n").unwrap();
    let quiet = RUST_HAZARD.replace("unsafe { fork() } {", "unsafe { fork() } { // noqa: GPU101");
    fs::write(dir.path().join("quiet.rs"), quiet).unwrap();
    let out = gpulint(
        &["check", "--output-format", "concise", "bad.rs", "quiet.rs"],
        dir.path(),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("bad.rs:2:13: GPU999"), "{text}");
    assert!(!text.contains("GPU101"), "{text}");
}

/// A chain of `depth` functions, each calling the next; the last runs `last`.
fn call_chain(depth: usize, last: &str) -> String {
    let mut text: String = (0..depth)
        .map(|i| format!("def c{i}(x):\n    c{}(x)\n\n\n", i + 1))
        .collect();
    text.push_str(&format!("def c{depth}(x):\n    {last}\n\n\n"));
    text
}

#[test]
fn verbose_names_where_the_analysis_was_cut_and_the_summary_counts_it() {
    let dir = tempfile::tempdir().unwrap();
    // Deeper than the interpreter follows calls: the end of the chain is never analysed.
    let chain = call_chain(80, "print(x)");
    fs::write(
        dir.path().join("main.py"),
        format!("import torch\n{chain}c0(1)\n{HAZARD}"),
    )
    .unwrap();
    let out = gpulint(
        &[
            "check",
            "--verbose",
            "--output-format",
            "concise",
            "main.py",
        ],
        dir.path(),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("main.py: analysis cut short: `c64` (main.py:")
            && stderr.contains("was not followed further (calls nested too deep)"),
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("1 function was not analysed (a budget ran out; `--verbose` names it)."),
        "{stdout}"
    );
    // The finding that did not depend on the cut part is still there, and says nothing of it.
    assert!(stdout.contains("GPU001"), "{stdout}");
    assert!(!stdout.contains("partial analysis"), "{stdout}");
    // Without --verbose, nothing on standard error.
    let quiet = gpulint(&["check", "--output-format", "json", "main.py"], dir.path());
    assert!(quiet.stderr.is_empty());
}

#[test]
fn a_binding_in_code_that_was_not_analysed_never_makes_a_finding() {
    let dir = tempfile::tempdir().unwrap();
    let chain = call_chain(80, "torch.cuda.set_device(x)");
    let program = |before: &str| {
        format!(
            "import os\nimport torch\nimport torch.distributed as dist\n\n\n{chain}\
             def main():\n    dist.init_process_group('nccl')\n{before}    \
             c0(int(os.environ['LOCAL_RANK']))\n    dist.barrier()\n\n\n\
             if __name__ == '__main__':\n    main()\n"
        )
    };
    // The binding sits past the depth the interpreter follows: GPU003 cannot say "never bound".
    fs::write(dir.path().join("cut.py"), program("")).unwrap();
    // A collective on GPU 0 before the cut call is evidence whatever that call does.
    fs::write(dir.path().join("early.py"), program("    dist.barrier()\n")).unwrap();
    let found = findings(&["cut.py", "early.py"], dir.path());
    assert_eq!(found, [("early.py".to_string(), "GPU003".to_string())]);
    // The same chain, short enough to follow, binds the device after the group: order only.
    let short = call_chain(5, "torch.cuda.set_device(x)");
    fs::write(
        dir.path().join("short.py"),
        program("").replace(&chain, &short),
    )
    .unwrap();
    assert_eq!(
        findings(&["short.py"], dir.path()),
        [("short.py".to_string(), "GPU015".to_string())]
    );
}

/// Order only: GPU015 (info), in `main`.
const GROUP: &str = "import os\nimport torch\nimport torch.distributed as dist\n\n\ndef main():\n    dist.init_process_group(\"nccl\")\n    torch.cuda.set_device(int(os.environ[\"LOCAL_RANK\"]))\n\n\nif __name__ == \"__main__\":\n    main()\n";

/// `(path, code)` of each finding, from `gpulint check --output-format concise ARGS`.
fn findings(args: &[&str], dir: &std::path::Path) -> Vec<(String, String)> {
    let mut all = vec!["check", "--output-format", "concise", "--quiet"];
    all.extend_from_slice(args);
    let out = gpulint(&all, dir);
    assert!(out.status.code().is_some_and(|c| c <= 1), "{out:?}");
    stdout(&out)
        .lines()
        .map(|l| {
            let (path, rest) = l.split_once(':').unwrap();
            let code = rest.split(' ').nth(1).unwrap();
            (path.to_string(), code.to_string())
        })
        .collect()
}

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

fn gpulint_with_stdin(args: &[&str], dir: &std::path::Path, input: &str) -> std::process::Output {
    use std::io::Write as _;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // A run refused before it reads (a usage error) closes its input: the write may find the pipe
    // broken, and the exit status says what happened.
    let written = child.stdin.take().unwrap().write_all(input.as_bytes());
    if let Err(e) = written {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    child.wait_with_output().unwrap()
}

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// `vendor/lib.py` and `app.py` hold a hazard; the configuration excludes `vendor`.
fn write_excluding_project(root: &std::path::Path) {
    fs::create_dir(root.join("vendor")).unwrap();
    fs::write(root.join("vendor/lib.py"), HAZARD).unwrap();
    fs::write(root.join("app.py"), HAZARD).unwrap();
    fs::write(root.join("gpulint.toml"), "exclude = [\"vendor\"]\n").unwrap();
}

#[test]
fn force_exclude_applies_exclude_to_named_files_and_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    write_excluding_project(dir.path());
    let named = gpulint(&["check", "vendor/lib.py", "app.py"], dir.path());
    assert!(stdout(&named).contains("in 2 files"), "{named:?}");
    let forced = gpulint(
        &[
            "check",
            "--force-exclude",
            "--output-format",
            "concise",
            "vendor/lib.py",
            "app.py",
        ],
        dir.path(),
    );
    let text = stdout(&forced);
    assert!(
        text.contains("app.py:8:6: GPU001") && !text.contains("vendor"),
        "{text}"
    );
    let only_excluded = gpulint(&["check", "--force-exclude", "vendor/lib.py"], dir.path());
    assert_eq!(only_excluded.status.code(), Some(0), "{only_excluded:?}");

    let args = ["check", "--stdin-filename", "vendor/new.py"];
    assert_eq!(
        gpulint_with_stdin(&args, dir.path(), HAZARD).status.code(),
        Some(1)
    );
    let forced = [&args[..], &["--force-exclude"]].concat();
    assert_eq!(
        gpulint_with_stdin(&forced, dir.path(), HAZARD)
            .status
            .code(),
        Some(0)
    );
}

#[test]
fn show_files_lists_what_would_be_checked() {
    let dir = tempfile::tempdir().unwrap();
    write_excluding_project(dir.path());
    fs::write(dir.path().join("notes.txt"), "x").unwrap();
    let out = gpulint(&["check", "--show-files", "."], dir.path());
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(stdout(&out), "app.py\n");
    let named = gpulint(
        &["check", "--show-files", "./vendor/lib.py", "app.py"],
        dir.path(),
    );
    assert_eq!(stdout(&named), "app.py\nvendor/lib.py\n");
    let forced = gpulint(
        &[
            "check",
            "--show-files",
            "--force-exclude",
            "vendor/lib.py",
            "app.py",
        ],
        dir.path(),
    );
    assert_eq!(stdout(&forced), "app.py\n");
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

#[test]
fn fix_with_stdin_filename_prints_the_fixed_source() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["check", "--fix", "--stdin-filename", "group.py"];
    let out = gpulint_with_stdin(&args, dir.path(), GROUP);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let fixed = stdout(&out);
    let bind = fixed.find("torch.cuda.set_device").unwrap();
    assert!(bind < fixed.find("init_process_group").unwrap(), "{fixed}");
    assert_eq!(fixed.len(), GROUP.len(), "{fixed}");
    assert!(stderr(&out).contains("Fixed 1 finding."), "{out:?}");
    assert!(!dir.path().join("group.py").exists(), "nothing is written");
    // What is left is reported on standard error, and decides the exit status.
    let out = gpulint_with_stdin(&args, dir.path(), HAZARD);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(stdout(&out), HAZARD);
    assert!(stderr(&out).contains("GPU001"), "{out:?}");
}

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

/// A mixed project: a PyO3 crate whose module initialiser creates a context, a script and a
/// notebook that import it before forking. GPU001 names the Rust line as the initialisation, in
/// both; the same crate initialising lazily, in another project, does not leak into this one.
#[test]
fn a_rust_extension_initialising_cuda_at_import_is_seen_from_python_and_notebooks() {
    let projects = root().join("corpus/projects");
    let out = gpulint(
        &[
            "check",
            "--output-format",
            "json",
            "pos_pyo3_extension_cuda_at_import",
            "neg_pyo3_extension_lazy_cuda",
        ],
        &projects,
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let findings: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let findings = findings.as_array().unwrap();
    assert_eq!(findings.len(), 2, "{findings:#?}");
    for f in findings {
        assert_eq!(f["code"], "GPU001");
        let file = f["filename"].as_str().unwrap();
        assert!(file.contains("pos_pyo3_extension_cuda_at_import"), "{file}");
        let init = f["related"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| {
                r["message"]
                    .as_str()
                    .unwrap()
                    .starts_with("CUDA was initialised")
            })
            .expect("the initialisation is related");
        assert!(
            init["filename"].as_str().unwrap().ends_with("src/lib.rs"),
            "{init}"
        );
        assert_eq!(init["location"]["row"], 12);
    }
}
