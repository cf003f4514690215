//! The composite action (`action.yml`) run end to end as a runner runs it (see tests/runner), with
//! its default inputs and its real install step:
//! - PyPI is asked first, through an index address that refuses connections (as an offline
//!   machine would; it also keeps a package of that name published by anyone else out of the
//!   test), so the step falls back to `cargo install --locked` of the action's own checkout,
//!   this repository.
//! - That build uses the action's `cargo-profile: dev` input, and `CARGO_TARGET_DIR` points at
//!   the test run's own target folder, so cargo reuses what it compiled for the tests (the release
//!   build would take about 10 minutes on 2 cores). It still compiles the crates whose features
//!   differ without the tests' dev-dependencies, once per target folder.
//! - `actions/cache` is simulated: a miss on the first run; on the second, the folder the first
//!   run built is still in place, as a restored cache puts it. The code scanning upload is
//!   recorded, not performed.

mod common;
mod runner;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::root;
use runner::{action_inputs, assert_valid_sarif, load, run_steps, set, ActionStep, Contexts, Job};
use yaml_rust2::Yaml;

/// A global rank used as a device index: GPU008, a warning.
const RANK_AS_DEVICE: &str =
    "import os\n\nimport torch\n\nrank = int(os.environ[\"RANK\"])\ntorch.cuda.set_device(rank)\n";

fn action_steps() -> (Yaml, Vec<Yaml>) {
    let action = load(&root().join("action.yml"));
    assert_eq!(action["runs"]["using"].as_str(), Some("composite"));
    let steps = action["runs"]["steps"].as_vec().unwrap().clone();
    (action, steps)
}

/// The folder `cargo test` builds into: the built binary is `<it>/debug/gpulint`.
fn test_target_dir() -> PathBuf {
    let exe = Path::new(env!("CARGO_BIN_EXE_gpulint"));
    exe.parent().unwrap().parent().unwrap().to_path_buf()
}

/// `PATH` without any folder that holds a `gpulint`, so that the one the action installs is the
/// one that runs.
fn path_without_gpulint() -> String {
    std::env::var("PATH")
        .unwrap_or_default()
        .split(':')
        .filter(|dir| !Path::new(dir).join("gpulint").exists())
        .collect::<Vec<_>>()
        .join(":")
}

/// The runner's environment: this process's, with the runner's variables, an index that refuses
/// connections, and cargo building into the tests' target folder.
fn runner_env(tmp: &Path, tool_cache: &Path) -> BTreeMap<String, String> {
    let mut env: BTreeMap<String, String> = std::env::vars()
        .filter(|(k, _)| !k.starts_with("PIP_") && !k.starts_with("GITHUB_"))
        .collect();
    env.insert("PATH".into(), path_without_gpulint());
    env.insert("PIP_INDEX_URL".into(), "http://127.0.0.1:9/simple/".into());
    env.insert("NO_COLOR".into(), "1".into());
    env.insert(
        "CARGO_TARGET_DIR".into(),
        test_target_dir().display().to_string(),
    );
    // Every crate the build needs was fetched for the tests: no network.
    env.insert("CARGO_NET_OFFLINE".into(), "true".into());
    env.insert("RUNNER_OS".into(), "Linux".into());
    env.insert("RUNNER_ARCH".into(), "X64".into());
    let temp = tmp.join("runner-temp");
    fs::create_dir_all(&temp).unwrap();
    env.insert("RUNNER_TEMP".into(), temp.display().to_string());
    env.insert("RUNNER_TOOL_CACHE".into(), tool_cache.display().to_string());
    env.insert("GITHUB_ACTION_PATH".into(), root().display().to_string());
    env.insert("GITHUB_EVENT_NAME".into(), "push".into());
    env
}

/// The contexts of a push event, with the action's defaults and `inputs` over them.
fn contexts(action: &Yaml, inputs: &[(&str, &str)]) -> Contexts {
    let mut contexts = action_inputs(action);
    for (k, v) in inputs {
        set(&mut contexts, &format!("inputs.{k}"), v);
    }
    set(&mut contexts, "github.event_name", "push");
    set(
        &mut contexts,
        "github.action_path",
        &root().display().to_string(),
    );
    set(&mut contexts, "runner.os", "Linux");
    set(&mut contexts, "runner.arch", "X64");
    contexts
}

/// A job's folder: a project with the hazard (an error and a warning) or a clean one.
fn job_dir(tmp: &Path, name: &str, hazard: bool) -> (PathBuf, PathBuf) {
    let dir = tmp.join(name);
    let project = runner::project(&dir, hazard);
    if hazard {
        fs::write(project.join("ranks.py"), RANK_AS_DEVICE).unwrap();
    }
    let scratch = dir.join("runner");
    fs::create_dir_all(&scratch).unwrap();
    (project, scratch)
}

/// Simulates the actions this action uses: the cache (whose restore is the folder left in place)
/// and the code scanning upload (recorded).
fn simulate(cache_hit: bool) -> impl FnMut(&ActionStep) -> BTreeMap<String, String> {
    move |step| {
        let mut outputs = BTreeMap::new();
        if step.uses.starts_with("actions/cache@") {
            outputs.insert("cache-hit".into(), cache_hit.to_string());
        } else {
            assert!(
                step.uses.starts_with("github/codeql-action/upload-sarif@"),
                "an action the test does not simulate: {}",
                step.uses
            );
        }
        outputs
    }
}

fn sha256_prefix(path: &Path) -> String {
    let out = Command::new("sha256sum").arg(path).output().unwrap();
    String::from_utf8_lossy(&out.stdout)[..16].to_string()
}

#[test]
fn with_default_inputs_the_action_builds_from_source_annotates_and_writes_sarif() {
    let (action, steps) = action_steps();
    let tmp = tempfile::tempdir().unwrap();
    let tool_cache = tmp.path().join("tool-cache");
    let version = env!("CARGO_PKG_VERSION");

    // The first run: no wheel on PyPI, nothing cached, so cargo builds the action's checkout.
    let (project, scratch) = job_dir(tmp.path(), "first", true);
    let job = Job {
        cwd: &project,
        scratch: &scratch,
        env: runner_env(&tmp.path().join("first"), &tool_cache),
    };
    let run = run_steps(
        &steps,
        &job,
        contexts(&action, &[("cargo-profile", "dev")]),
        &mut simulate(false),
    );
    let logs = run.all_logs();
    assert!(
        run.log("Install gpulint from PyPI").contains(&format!(
            "gpulint {version}: no wheel for this runner from PyPI"
        )),
        "{logs}"
    );
    // The cache is asked for the folder cargo installs into, under a key naming the runner's OS
    // and architecture, the version, the profile, Cargo.lock's hash and the action's ref.
    let [cache] = run.actions.as_slice() else {
        panic!("only the cache runs: {:?}", run.actions);
    };
    assert_eq!(cache.uses, "actions/cache@v4");
    let key = &cache.with["key"];
    let lock = sha256_prefix(&root().join("Cargo.lock"));
    let expected = format!("gpulint-Linux-X64-{version}-dev-lock-{lock}-local-src-");
    assert!(key.starts_with(&expected), "{key} should start {expected}");
    let install_root = PathBuf::from(&cache.with["path"]);
    assert!(install_root.starts_with(&tool_cache), "{install_root:?}");
    let build = run.log("Build gpulint from the action's source");
    assert!(
        build.contains("cargo install --locked --profile dev") && build.contains("Installed"),
        "{logs}"
    );
    assert!(install_root.join("bin/gpulint").is_file(), "{logs}");
    assert_eq!(run.value("steps.installed.outputs.from"), "source");
    let shown = run.log("Show the gpulint that runs");
    assert!(
        shown.starts_with(&format!(
            "{}: gpulint {version}, installed from source",
            install_root.join("bin/gpulint").display()
        )),
        "{shown}"
    );
    // The installed binary annotates the pull request: an error and a warning.
    let annotations = run.log("Check (annotations on the pull request)");
    assert!(
        annotations.contains("::error file=train.py,line=12,"),
        "{annotations}"
    );
    assert!(
        annotations.contains("::warning file=ranks.py,line=6,"),
        "{annotations}"
    );
    assert_eq!(run.value("steps.check.outputs.exit-code"), "1");
    // The SARIF report is written though the check failed; uploading is off by default.
    let sarif = assert_valid_sarif(&root(), &project.join("gpulint.sarif"));
    let rules: Vec<&str> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["ruleId"].as_str().unwrap())
        .collect();
    assert!(
        rules.contains(&"GPU001") && rules.contains(&"GPU008"),
        "{rules:?}"
    );
    assert_eq!(run.value("steps.sarif.outputs.upload"), "false");
    assert_eq!(
        run.skipped,
        ["Install gpulint with the install input", "Upload SARIF"]
    );
    // The job fails, at the last step, because the findings do.
    assert!(run.failed);
    assert_eq!(run.logs.last().unwrap().0, "Fail on findings");

    // The next run finds the build where the cache restores it, and builds nothing.
    let (project, scratch) = job_dir(tmp.path(), "second", false);
    let job = Job {
        cwd: &project,
        scratch: &scratch,
        env: runner_env(&tmp.path().join("second"), &tool_cache),
    };
    let run = run_steps(
        &steps,
        &job,
        contexts(&action, &[("cargo-profile", "dev")]),
        &mut simulate(true),
    );
    let logs = run.all_logs();
    assert_eq!(run.actions[0].with["key"], *key);
    let build = run.log("Build gpulint from the action's source");
    assert!(
        build.contains("from the cache of an earlier run's build")
            && !build.contains("Compiling")
            && !build.contains("Installing"),
        "{logs}"
    );
    assert_eq!(run.value("steps.installed.outputs.from"), "cache");
    assert_eq!(run.value("steps.check.outputs.exit-code"), "0");
    let sarif = assert_valid_sarif(&root(), &project.join("gpulint.sarif"));
    assert_eq!(sarif["runs"][0]["results"].as_array().unwrap().len(), 0);
    assert!(!run.failed, "{logs}");
}

#[test]
fn the_cache_key_changes_with_the_lock_file_and_the_ref() {
    let (action, steps) = action_steps();
    let tmp = tempfile::tempdir().unwrap();
    // A copy of the action holding only its manifests: all the key step reads.
    let copy = tmp.path().join("action");
    fs::create_dir(&copy).unwrap();
    for file in ["Cargo.toml", "Cargo.lock"] {
        fs::copy(root().join(file), copy.join(file)).unwrap();
    }
    let key = |reference: &str| {
        let (project, scratch) = job_dir(tmp.path(), "job", false);
        let mut env = runner_env(&tmp.path().join("job"), &tmp.path().join("tool-cache"));
        env.insert("GITHUB_ACTION_PATH".into(), copy.display().to_string());
        env.insert("GITHUB_ACTION_REF".into(), reference.into());
        let job = Job {
            cwd: &project,
            scratch: &scratch,
            env,
        };
        let run = run_steps(
            &steps[..1],
            &job,
            contexts(&action, &[]),
            &mut simulate(false),
        );
        assert!(!run.failed, "{}", run.all_logs());
        run.value("steps.pypi.outputs.key")
    };
    let first = key("v1");
    assert!(
        first.contains("-release-") && first.contains("-v1-"),
        "{first}"
    );
    assert_ne!(key("v2"), first);
    let lock = fs::read_to_string(copy.join("Cargo.lock")).unwrap();
    fs::write(copy.join("Cargo.lock"), lock + "\n").unwrap();
    assert_ne!(key("v1"), first);
}

/// `PATH` holding every command of the system folders but cargo, rustc and rustup.
fn path_without_cargo(dir: &Path) -> String {
    fs::create_dir_all(dir).unwrap();
    for folder in ["/usr/local/bin", "/usr/bin", "/bin"] {
        let Ok(entries) = fs::read_dir(folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            let rust = ["cargo", "rustc", "rustup", "gpulint"]
                .iter()
                .any(|p| name.starts_with(p));
            let link = dir.join(&name);
            if !rust && !link.exists() {
                std::os::unix::fs::symlink(entry.path(), link).unwrap();
            }
        }
    }
    dir.display().to_string()
}

#[test]
fn without_a_wheel_or_cargo_the_job_fails_and_says_why() {
    let (action, steps) = action_steps();
    let tmp = tempfile::tempdir().unwrap();
    let (project, scratch) = job_dir(tmp.path(), "job", true);
    let mut env = runner_env(&tmp.path().join("job"), &tmp.path().join("tool-cache"));
    env.insert(
        "PATH".into(),
        path_without_cargo(&tmp.path().join("system")),
    );
    let job = Job {
        cwd: &project,
        scratch: &scratch,
        env,
    };
    // A version PyPI does not have: the action says it builds its own instead.
    let run = run_steps(
        &steps,
        &job,
        contexts(&action, &[("version", "9.9.9")]),
        &mut simulate(false),
    );
    let build = run.log("Build gpulint from the action's source");
    assert!(
        build.contains(&format!(
            "::warning title=gpulint version::PyPI has no gpulint 9.9.9 wheel for this runner: the action builds its own source, gpulint {}",
            env!("CARGO_PKG_VERSION")
        )),
        "{build}"
    );
    assert!(
        build.contains("::error title=gpulint is not installed::")
            && build.contains("cargo is not on PATH"),
        "{build}"
    );
    assert!(run.failed);
    // Nothing runs gpulint afterwards, and nothing pretends to have checked.
    assert_eq!(
        run.skipped,
        [
            "Install gpulint with the install input",
            "Show the gpulint that runs",
            "Check (annotations on the pull request)",
            "Write SARIF",
            "Upload SARIF",
            "Fail on findings"
        ]
    );
    assert!(!project.join("gpulint.sarif").exists());
}

#[test]
fn an_install_input_replaces_the_install_and_sarif_upload_is_opt_in() {
    let (action, steps) = action_steps();
    let tmp = tempfile::tempdir().unwrap();
    let install = format!(
        "mkdir -p \"$RUNNER_TEMP/mine\" && ln -s {} \"$RUNNER_TEMP/mine/gpulint\" && echo \"$RUNNER_TEMP/mine\" >> \"$GITHUB_PATH\"",
        env!("CARGO_BIN_EXE_gpulint")
    );
    let job_run = |name: &str, inputs: &[(&str, &str)], fork: bool| {
        let (project, scratch) = job_dir(tmp.path(), name, true);
        let job = Job {
            cwd: &project,
            scratch: &scratch,
            env: runner_env(&tmp.path().join(name), &tmp.path().join("tool-cache")),
        };
        let mut contexts = contexts(&action, inputs);
        if fork {
            set(&mut contexts, "github.event_name", "pull_request");
            contexts.insert(
                "github.event.pull_request.head.repo.fork".into(),
                runner::Value::Bool(true),
            );
        }
        let run = run_steps(&steps, &job, contexts, &mut simulate(false));
        (run, project)
    };

    // The input's command installs; PyPI, the cache and cargo are not asked.
    let (run, project) = job_run(
        "install",
        &[("install", &install), ("upload-sarif", "true")],
        false,
    );
    for step in [
        "Install gpulint from PyPI",
        "Cache gpulint's build from source",
        "Build gpulint from the action's source",
    ] {
        assert!(run.skipped.iter().any(|s| s == step), "{step} ran");
    }
    assert_eq!(run.value("steps.installed.outputs.from"), "install");
    assert!(run
        .log("Check (annotations on the pull request)")
        .contains("::error file=train.py,line=12,"));
    assert_valid_sarif(&root(), &project.join("gpulint.sarif"));
    // Asked for, the upload runs with code scanning's current action.
    let [upload] = run.actions.as_slice() else {
        panic!("one upload: {:?}", run.actions);
    };
    assert_eq!(upload.uses, "github/codeql-action/upload-sarif@v4");
    assert_eq!(upload.with["sarif_file"], "gpulint.sarif");
    assert!(run.failed);

    // On a pull request from a fork the token cannot upload: a notice, and the report stays.
    let (run, project) = job_run(
        "fork",
        &[("install", &install), ("upload-sarif", "true")],
        true,
    );
    assert!(run.actions.is_empty(), "{:?}", run.actions);
    assert!(run
        .log("Write SARIF")
        .contains("::notice title=SARIF not uploaded::"));
    assert_valid_sarif(&root(), &project.join("gpulint.sarif"));

    // An install command that leaves gpulint off PATH fails the job, and nothing checks.
    let (run, project) = job_run("nothing", &[("install", "true")], false);
    assert!(run
        .log("Show the gpulint that runs")
        .contains("::error title=gpulint is not installed::"));
    assert!(run.failed);
    assert!(run
        .skipped
        .iter()
        .any(|s| s == "Check (annotations on the pull request)"));
    assert!(!project.join("gpulint.sarif").exists());
}

/// Writes `gpulint-<version>-py3-none-any.whl` into `dir`: a wheel whose `gpulint` script runs the
/// built binary, standing in for the one PyPI will have.
fn fake_wheel(dir: &Path, version: &str) {
    const WRITE_WHEEL: &str = r#"
import base64, hashlib, sys, zipfile
out, version, exe = sys.argv[1:]
files = {
    f"gpulint-{version}.data/scripts/gpulint": f'#!/bin/sh\nexec "{exe}" "$@"\n',
    f"gpulint-{version}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: gpulint\nVersion: {version}\n",
    f"gpulint-{version}.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\nTag: py3-none-any\n",
}
record = f"gpulint-{version}.dist-info/RECORD"
with zipfile.ZipFile(f"{out}/gpulint-{version}-py3-none-any.whl", "w") as whl:
    lines = []
    for name, text in files.items():
        data = text.encode()
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        info = zipfile.ZipInfo(name)
        info.external_attr = 0o100755 << 16  # a regular, executable file
        whl.writestr(info, data)
        lines.append(f"{name},sha256={digest},{len(data)}")
    whl.writestr(record, "\n".join(lines + [f"{record},,"]) + "\n")
"#;
    let status = Command::new("python3")
        .args(["-c", WRITE_WHEEL])
        .arg(dir)
        .arg(version)
        .arg(env!("CARGO_BIN_EXE_gpulint"))
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn a_wheel_on_the_index_is_installed_and_nothing_is_built() {
    let (action, steps) = action_steps();
    let tmp = tempfile::tempdir().unwrap();
    let index = tmp.path().join("index");
    fs::create_dir(&index).unwrap();
    fake_wheel(&index, env!("CARGO_PKG_VERSION"));
    let (project, scratch) = job_dir(tmp.path(), "job", true);
    let mut env = runner_env(&tmp.path().join("job"), &tmp.path().join("tool-cache"));
    env.insert("PIP_FIND_LINKS".into(), index.display().to_string());
    let job = Job {
        cwd: &project,
        scratch: &scratch,
        env,
    };
    let run = run_steps(&steps, &job, contexts(&action, &[]), &mut simulate(false));
    let logs = run.all_logs();
    assert!(
        run.log("Install gpulint from PyPI")
            .contains("gpulint 0.1.0: installed from PyPI"),
        "{logs}"
    );
    assert_eq!(run.value("steps.installed.outputs.from"), "pypi");
    assert!(run
        .skipped
        .iter()
        .any(|s| s == "Build gpulint from the action's source"));
    assert!(run.actions.is_empty(), "no cache: {:?}", run.actions);
    assert!(
        run.log("Check (annotations on the pull request)")
            .contains("::error file=train.py,line=12,"),
        "{logs}"
    );
    assert_valid_sarif(&root(), &project.join("gpulint.sarif"));
    assert!(run.failed);
}

#[test]
fn the_build_from_source_keeps_to_cargo_lock() {
    let (action, steps) = action_steps();
    let tmp = tempfile::tempdir().unwrap();
    // The action's checkout, with a manifest that asks for a dependency Cargo.lock does not give
    // the package: an unlocked build would change the lock file; this one must stop.
    let copy = tmp.path().join("action");
    let files = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(files.status.success());
    for file in files.stdout.split(|b| *b == 0).filter(|f| !f.is_empty()) {
        let file = String::from_utf8_lossy(file).to_string();
        let to = copy.join(&file);
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        fs::copy(root().join(&file), to).unwrap();
    }
    let manifest = fs::read_to_string(copy.join("Cargo.toml")).unwrap();
    let stale = manifest.replacen("anyhow = \"1\"\n", "anyhow = \"1\"\nitoa = \"1\"\n", 1);
    assert_ne!(stale, manifest);
    fs::write(copy.join("Cargo.toml"), stale).unwrap();
    let (project, scratch) = job_dir(tmp.path(), "job", true);
    let mut env = runner_env(&tmp.path().join("job"), &tmp.path().join("tool-cache"));
    env.insert("GITHUB_ACTION_PATH".into(), copy.display().to_string());
    let job = Job {
        cwd: &project,
        scratch: &scratch,
        env,
    };
    let run = run_steps(
        &steps,
        &job,
        contexts(&action, &[("cargo-profile", "dev")]),
        &mut simulate(false),
    );
    let build = run.log("Build gpulint from the action's source");
    assert!(
        build.contains("--locked was passed")
            && build.contains("::error title=gpulint is not installed::the build failed"),
        "{build}"
    );
    assert_eq!(
        fs::read(copy.join("Cargo.lock")).unwrap(),
        fs::read(root().join("Cargo.lock")).unwrap()
    );
    assert!(run.failed && !project.join("gpulint.sarif").exists());
}
