//! The packaging, for real: the wheel maturin builds installs into a fresh virtualenv and runs, and
//! pre-commit runs this repository as a hook against a git repository with a hazard. They download
//! maturin and pre-commit with pip and build the binary again (minutes), so they are `#[ignore]`d
//! in the quick `cargo test --workspace` and run by the full test command (`-- --include-ignored`).

mod common;

use std::fs;
use std::path::Path;
use std::process::Command;

use common::root;

fn run(cmd: &mut Command) -> std::process::Output {
    cmd.output().expect("the command runs")
}

fn ok(cmd: &mut Command) -> std::process::Output {
    let out = run(cmd);
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A virtualenv under `dir` with `packages` installed; returns its `bin` folder.
fn venv(dir: &Path, packages: &[&str]) -> std::path::PathBuf {
    ok(Command::new("python3").args(["-m", "venv"]).arg(dir));
    let bin = dir.join("bin");
    if !packages.is_empty() {
        ok(Command::new(bin.join("pip"))
            .args(["install", "--quiet", "--disable-pip-version-check"])
            .args(packages));
    }
    bin
}

/// Runs git in `dir` with an identity of its own (CI machines have none).
fn git_in(dir: &Path, args: &[&str]) {
    ok(Command::new("git")
        .args(["-c", "user.email=ci@example.com", "-c", "user.name=ci"])
        .args(args)
        .current_dir(dir));
}

const HAZARD: &str = "import torch\nimport multiprocessing as mp\n\ndef work(x):\n    return x.cuda()\n\nmodel = torch.nn.Linear(2, 2).cuda()\nwith mp.Pool(2) as pool:\n    pool.map(work, [torch.ones(2)])\n";

#[test]
#[ignore = "slow: builds and installs the wheel (run with --include-ignored)"]
fn the_maturin_wheel_installs_and_runs_without_a_rust_toolchain() {
    let tmp = tempfile::tempdir().unwrap();
    let tools = venv(&tmp.path().join("tools"), &["maturin>=1.5,<2"]);
    let dist = tmp.path().join("dist");
    ok(Command::new(tools.join("maturin"))
        .args(["build", "--profile", "dev", "--quiet", "--out"])
        .arg(&dist)
        .current_dir(root()));
    let wheel = fs::read_dir(&dist)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "whl"))
        .expect("a wheel was built");
    let user = venv(
        &tmp.path().join("user"),
        &[wheel.to_str().unwrap(), "pre-commit>=3,<5"],
    );
    fs::write(tmp.path().join("hazard.py"), HAZARD).unwrap();
    let out = run(Command::new(user.join("gpulint"))
        .args(["check", "--output-format", "concise", "hazard.py"])
        .current_dir(tmp.path()));
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("hazard.py:8:6: GPU001"));

    // The same wheel as a pre-commit hook (`language: python`): no Rust toolchain involved.
    let project = tmp.path().join("project");
    fs::create_dir(&project).unwrap();
    let git = |args: &[&str]| git_in(&project, args);
    git(&["init", "--quiet"]);
    fs::write(project.join("hazard.py"), HAZARD).unwrap();
    fs::write(
        project.join(".pre-commit-config.yaml"),
        format!(
            "repos:\n  - repo: local\n    hooks:\n      - id: gpulint\n        name: gpulint\n        entry: gpulint check --force-exclude\n        language: python\n        additional_dependencies: [\"{}\"]\n        types_or: [python, pyi]\n        require_serial: true\n",
            wheel.display()
        ),
    )
    .unwrap();
    git(&["add", "."]);
    git(&["commit", "--quiet", "-m", "a hazard"]);
    let hook = run(Command::new(user.join("pre-commit"))
        .args(["run", "--all-files"])
        .env("PRE_COMMIT_HOME", tmp.path().join("cache"))
        .current_dir(&project));
    let text = String::from_utf8_lossy(&hook.stdout);
    assert!(!hook.status.success(), "the hook must fail:\n{text}");
    assert!(text.contains("GPU001"), "{text}");
    assert!(!text.contains("vendor"), "{text}");
}

#[test]
#[ignore = "slow: pre-commit builds the hook from source (run with --include-ignored)"]
fn pre_commit_runs_the_hook_from_this_repository() {
    let tmp = tempfile::tempdir().unwrap();
    let tools = venv(&tmp.path().join("tools"), &["pre-commit>=3,<5"]);
    let project = tmp.path().join("project");
    fs::create_dir(&project).unwrap();
    let git = |args: &[&str]| git_in(&project, args);
    git(&["init", "--quiet"]);
    fs::write(project.join("hazard.py"), HAZARD).unwrap();
    // Excluded by the configuration: the hook leaves it alone although pre-commit names it.
    fs::create_dir(project.join("vendor")).unwrap();
    fs::write(project.join("vendor/lib.py"), HAZARD).unwrap();
    fs::write(project.join("gpulint.toml"), "exclude = [\"vendor\"]\n").unwrap();
    git(&["add", "hazard.py", "vendor/lib.py", "gpulint.toml"]);
    git(&["commit", "--quiet", "-m", "a hazard"]);
    let try_repo = || {
        run(Command::new(tools.join("pre-commit"))
            .arg("try-repo")
            .arg(root())
            .args(["gpulint", "--all-files"])
            .env("PRE_COMMIT_HOME", tmp.path().join("cache"))
            .current_dir(&project))
    };
    let failing = try_repo();
    let text = String::from_utf8_lossy(&failing.stdout);
    assert!(!failing.status.success(), "the hook must fail:\n{text}");
    assert!(text.contains("GPU001"), "{text}");
    assert!(!text.contains("vendor"), "{text}");

    let fixed = HAZARD.replace(
        "with mp.Pool(2) as pool:",
        "with mp.Pool(2) as pool:  # noqa: GPU001",
    );
    fs::write(project.join("hazard.py"), fixed).unwrap();
    git(&["commit", "--quiet", "-am", "suppressed"]);
    let passing = try_repo();
    assert!(
        passing.status.success(),
        "the hook must pass after the noqa:\n{}",
        String::from_utf8_lossy(&passing.stdout)
    );
}
