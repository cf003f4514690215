//! The CI recipes (`docs/ci/`) run as their runners would run them (see tests/runner; the
//! composite action has its own tests in tests/action.rs), install step included:
//! - PyPI is asked for real, through an index address that refuses connections, so the recipes
//!   fall back to their build from source.
//! - Their source is a clone of this repository with an annotated tag (as a release would have),
//!   which the recipes resolve, clone and check with the real `cargo metadata --locked`.
//! - The `cargo install` that follows would be a release build of its own (about 10 minutes on 2
//!   cores): a `cargo` placed first on `PATH` records the arguments it gets and puts the binary the
//!   tests built where `--root` says. Every other `cargo` command goes to the real one.
//! - `actions/checkout`, `actions/setup-python` (a `python` on `PATH`) and `actions/cache` (a
//!   miss, then the folder left in place) are simulated; the code scanning upload is recorded.

mod common;
mod runner;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::root;
use runner::{assert_valid_sarif, load, run_steps, set, ActionStep, Contexts, Job, Value};

/// A clone of this repository with the annotated tag `v-test`; returns it and the tagged commit.
fn source_repository(dir: &Path) -> (PathBuf, String) {
    let repo = dir.join("gpulint.git");
    let git = |args: &[&str], cwd: &Path| {
        let out = Command::new("git")
            .args(["-c", "user.email=ci@example.com", "-c", "user.name=ci"])
            .args(args)
            .current_dir(cwd)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    git(
        &[
            "clone",
            "--quiet",
            &root().display().to_string(),
            "gpulint.git",
        ],
        dir,
    );
    git(&["tag", "-a", "v-test", "-m", "a release"], &repo);
    let commit = git(&["rev-parse", "HEAD"], &repo);
    (repo, commit)
}

/// A folder of stand-ins put first on `PATH`: `python` (what setup-python gives) and `cargo`
/// (see the module's doc). The `cargo` calls are logged to `<dir>/cargo-calls`.
fn stand_ins(dir: &Path) -> PathBuf {
    let bin = dir.join("stand-ins");
    fs::create_dir_all(&bin).unwrap();
    let which = |name: &str| {
        let out = Command::new("sh")
            .args(["-c", &format!("command -v {name}")])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    std::os::unix::fs::symlink(which("python3"), bin.join("python")).unwrap();
    let cargo = format!(
        r#"#!/bin/sh
echo "$*" >> "{calls}"
if [ "$1" != install ]; then exec "{real}" "$@"; fi
while [ $# -gt 0 ]; do
  if [ "$1" = --root ]; then root=$2; fi
  shift
done
mkdir -p "$root/bin"
ln -s "{exe}" "$root/bin/gpulint"
"#,
        calls = dir.join("cargo-calls").display(),
        real = which("cargo"),
        exe = env!("CARGO_BIN_EXE_gpulint"),
    );
    fs::write(bin.join("cargo"), cargo).unwrap();
    Command::new("chmod")
        .arg("+x")
        .arg(bin.join("cargo"))
        .status()
        .unwrap();
    bin
}

/// The environment of a job: this process's, with `HOME` in `dir` (the recipes cache under it),
/// Rust's folders kept where they are, the stand-ins first on `PATH`, and an index that refuses
/// connections.
fn job_env(dir: &Path, stand_ins: &Path) -> BTreeMap<String, String> {
    let mut env: BTreeMap<String, String> = std::env::vars()
        .filter(|(k, _)| !k.starts_with("PIP_") && !k.starts_with("GITHUB_"))
        .collect();
    let home = std::env::var("HOME").unwrap_or_default();
    env.entry("CARGO_HOME".into())
        .or_insert_with(|| format!("{home}/.cargo"));
    env.entry("RUSTUP_HOME".into())
        .or_insert_with(|| format!("{home}/.rustup"));
    let job_home = dir.join("home");
    fs::create_dir_all(&job_home).unwrap();
    env.insert("HOME".into(), job_home.display().to_string());
    let path = std::env::var("PATH").unwrap_or_default();
    let path: Vec<&str> = path
        .split(':')
        .filter(|d| !Path::new(d).join("gpulint").exists())
        .collect();
    env.insert(
        "PATH".into(),
        format!("{}:{}", stand_ins.display(), path.join(":")),
    );
    env.insert("PIP_INDEX_URL".into(), "http://127.0.0.1:9/simple/".into());
    env.insert("CARGO_NET_OFFLINE".into(), "true".into());
    env.insert("NO_COLOR".into(), "1".into());
    env
}

/// The `cargo` commands the stand-in saw.
fn cargo_calls(dir: &Path) -> Vec<String> {
    fs::read_to_string(dir.join("cargo-calls"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

fn simulate(cache_hit: bool) -> impl FnMut(&ActionStep) -> BTreeMap<String, String> {
    move |step| {
        let mut outputs = BTreeMap::new();
        match step.uses.split('@').next().unwrap() {
            "actions/checkout" | "actions/setup-python" => {}
            "actions/cache" => {
                outputs.insert("cache-hit".into(), cache_hit.to_string());
            }
            "github/codeql-action/upload-sarif" => {}
            other => panic!("an action the test does not simulate: {other}"),
        }
        outputs
    }
}

#[test]
fn the_github_recipe_installs_checks_and_fails_on_findings() {
    let workflow = load(&root().join("docs/ci/github-workflow.yml"));
    assert_eq!(
        workflow["env"]["GPULINT_VERSION"].as_str(),
        Some(env!("CARGO_PKG_VERSION")),
        "the recipe installs this version"
    );
    assert_eq!(
        workflow["env"]["GPULINT_UPLOAD_SARIF"].as_str(),
        Some("false")
    );
    let steps = workflow["jobs"]["gpulint"]["steps"].as_vec().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let (repo, commit) = source_repository(tmp.path());
    let bin = stand_ins(tmp.path());

    // `settings`: the workflow's `env:` as a user would edit it, and the event.
    let job_run = |name: &str, hazard: bool, settings: &[(&str, &str)], fork: bool| {
        let dir = tmp.path().join(name);
        let project = runner::project(&dir, hazard);
        let scratch = dir.join("runner");
        fs::create_dir_all(&scratch).unwrap();
        fs::create_dir_all(dir.join("temp")).unwrap();
        let mut env = job_env(tmp.path(), &bin);
        env.insert("RUNNER_TEMP".into(), dir.join("temp").display().to_string());
        let mut contexts = Contexts::new();
        for (k, v) in workflow["env"].as_hash().unwrap() {
            let (k, v) = (k.as_str().unwrap(), v.as_str().unwrap());
            env.insert(k.into(), v.into());
        }
        env.insert("GPULINT_GIT".into(), repo.display().to_string());
        env.insert("GPULINT_REF".into(), "v-test".into());
        for (k, v) in settings {
            env.insert(k.to_string(), v.to_string());
        }
        for (k, v) in &env {
            if k.starts_with("GPULINT_") {
                set(&mut contexts, &format!("env.{k}"), v);
            }
        }
        set(&mut contexts, "runner.os", "Linux");
        set(&mut contexts, "runner.arch", "X64");
        set(
            &mut contexts,
            "github.event_name",
            if fork { "pull_request" } else { "push" },
        );
        if fork {
            contexts.insert(
                "github.event.pull_request.head.repo.fork".into(),
                Value::Bool(true),
            );
        }
        let job = Job {
            cwd: &project,
            scratch: &scratch,
            env,
        };
        let cache_hit = name != "first";
        let run = run_steps(steps, &job, contexts, &mut simulate(cache_hit));
        (run, project)
    };

    // No wheel: the tag is resolved to its commit, which keys the cache and is built, locked.
    let (run, project) = job_run("first", true, &[], false);
    let logs = run.all_logs();
    assert!(
        run.log("Install gpulint from PyPI").contains(&format!(
            "no wheel for this runner from PyPI; building {} at {commit}",
            repo.display()
        )),
        "{logs}"
    );
    let cache = &run.actions[2];
    assert_eq!(cache.uses, "actions/cache@v4");
    assert_eq!(cache.with["key"], format!("gpulint-Linux-X64-{commit}"));
    let calls = cargo_calls(tmp.path());
    let [metadata, install] = calls.as_slice() else {
        panic!("{calls:?}\n{logs}");
    };
    assert!(
        metadata.starts_with("metadata --locked --format-version 1 --manifest-path "),
        "{metadata}"
    );
    assert!(install.starts_with("install --locked --path "), "{install}");
    let annotations = run.log("Check (annotations on the pull request)");
    assert!(
        annotations.contains("::error file=train.py,line=12,"),
        "{annotations}"
    );
    assert_valid_sarif(&root(), &project.join("gpulint.sarif"));
    assert!(run.skipped.iter().any(|s| s == "Upload SARIF"));
    assert!(run.failed);
    assert_eq!(run.logs.last().unwrap().0, "Fail on findings");

    // The next run takes the cached build; asked to, it uploads the report.
    let (run, project) = job_run("second", false, &[("GPULINT_UPLOAD_SARIF", "true")], false);
    let logs = run.all_logs();
    assert!(
        run.log("Build gpulint from source")
            .contains("from the cache of an earlier run's build"),
        "{logs}"
    );
    assert_eq!(cargo_calls(tmp.path()).len(), 2, "nothing more was built");
    assert_valid_sarif(&root(), &project.join("gpulint.sarif"));
    let upload = run.actions.last().unwrap();
    assert_eq!(upload.uses, "github/codeql-action/upload-sarif@v4");
    assert_eq!(upload.with["sarif_file"], "gpulint.sarif");
    assert!(!run.failed, "{logs}");

    // Not from a fork's pull request.
    let (run, _) = job_run("fork", false, &[("GPULINT_UPLOAD_SARIF", "true")], true);
    assert!(run
        .log("Write SARIF")
        .contains("::notice title=SARIF not uploaded::"));
    assert!(run.skipped.iter().any(|s| s == "Upload SARIF"));
}

#[test]
fn the_gitlab_recipe_installs_writes_its_report_and_fails_on_findings() {
    let recipe = load(&root().join("docs/ci/gitlab-ci.yml"));
    let job = &recipe["gpulint"];
    assert_eq!(
        job["artifacts"]["reports"]["codequality"].as_str(),
        Some("gl-code-quality.json")
    );
    assert_eq!(job["artifacts"]["when"].as_str(), Some("always"));
    assert_eq!(
        job["variables"]["GPULINT_VERSION"].as_str(),
        Some(env!("CARGO_PKG_VERSION"))
    );
    let cached = job["cache"]["paths"][0].as_str().unwrap();
    let script: Vec<&str> = job["script"]
        .as_vec()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    let tmp = tempfile::tempdir().unwrap();
    let (repo, commit) = source_repository(tmp.path());
    let bin = stand_ins(tmp.path());
    let project = runner::project(&tmp.path().join("job"), true);
    for (round, hazard) in [(1, true), (2, false)] {
        fs::write(
            project.join("train.py"),
            if hazard {
                runner::HAZARD
            } else {
                runner::CLEAN
            },
        )
        .unwrap();
        let mut env = job_env(tmp.path(), &bin);
        for (k, v) in job["variables"].as_hash().unwrap() {
            env.insert(k.as_str().unwrap().into(), v.as_str().unwrap().into());
        }
        env.insert("GPULINT_GIT".into(), repo.display().to_string());
        env.insert("GPULINT_REF".into(), "v-test".into());
        // GitLab runs the lines in one shell and stops at the first that fails.
        let out = Command::new("bash")
            .args(["--noprofile", "--norc", "-eo", "pipefail", "-c"])
            .arg(script.join("\n"))
            .current_dir(&project)
            .env_clear()
            .envs(&env)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.success(), !hazard, "{text}");
        let report: serde_json::Value = serde_json::from_str(
            &fs::read_to_string(project.join("gl-code-quality.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(report.as_array().unwrap().len(), usize::from(hazard));
        // The build is in the cached folder, under its commit, and made once.
        assert!(project
            .join(cached)
            .join(&commit)
            .join("bin/gpulint")
            .exists());
        let calls = cargo_calls(tmp.path());
        assert_eq!(calls.len(), 2, "{calls:?}\n{text}");
        assert!(calls[0].starts_with("metadata --locked "), "{calls:?}");
        assert!(
            calls[1].starts_with("install --locked --path "),
            "{calls:?}"
        );
        if round == 1 {
            assert!(text.contains(&format!("building {} at {commit}", repo.display())));
        } else {
            assert!(
                text.contains("from the cache of an earlier job's build"),
                "{text}"
            );
        }
    }
}
