//! The packaging, for real: the wheel maturin builds installs into a fresh virtualenv and runs, and
//! pre-commit runs this repository as a hook against a git repository with a hazard. They download
//! maturin and pre-commit with pip and build the binary again (minutes), so they are `#[ignore]`d
//! in the quick `cargo test --workspace` and run by the full test command (`-- --include-ignored`).
//! pre-commit installs the hook as it does for users (`pip install` of a clone, built by maturin),
//! but in the dev profile (`MATURIN_PEP517_ARGS`) and into the test run's target folder, so that
//! it reuses the compiled dependencies instead of a release build of about ten minutes.

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

/// `PATH` with no Rust toolchain on it, and rustup and cargo pointed nowhere: what a user's
/// machine without Rust looks like to pip.
fn without_rust<'a>(cmd: &'a mut Command, bin: &Path) -> &'a mut Command {
    cmd.env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .env("CARGO_HOME", "/nonexistent")
        .env("RUSTUP_HOME", "/nonexistent")
}

#[test]
#[ignore = "slow: builds and installs the wheel (run with --include-ignored)"]
fn the_maturin_wheel_installs_and_runs_without_a_rust_toolchain() {
    let tmp = tempfile::tempdir().unwrap();
    // As scripts/build-wheel.sh builds a release, but unoptimised, to keep the test short.
    let tools = venv(&tmp.path().join("tools"), &["maturin>=1.5,<2", "ziglang"]);
    let dist = tmp.path().join("dist");
    let tools_path = format!("{}:{}", tools.display(), std::env::var("PATH").unwrap());
    ok(Command::new(tools.join("maturin"))
        .args(["build", "--profile", "dev", "--quiet", "--strip", "--zig"])
        .args(["--compatibility", "manylinux2014", "--out"])
        .arg(&dist)
        .env("PATH", &tools_path)
        .current_dir(root()));
    ok(Command::new(tools.join("maturin"))
        .args(["sdist", "--out"])
        .arg(&dist)
        .env("PATH", &tools_path)
        .current_dir(root()));
    let built: Vec<_> = fs::read_dir(&dist)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let wheel = built
        .iter()
        .find(|p| p.extension().is_some_and(|e| e == "whl"))
        .expect("a wheel was built")
        .clone();
    let name = wheel.file_name().unwrap().to_string_lossy().to_string();
    // An index accepts a manylinux tag, not `linux_x86_64`; stripped, the binary is small.
    assert!(name.contains("manylinux_2_17"), "{name}");
    let size = fs::metadata(&wheel).unwrap().len();
    assert!(size < 15 << 20, "{name} is {size} bytes");
    let sdist = built
        .iter()
        .find(|p| p.to_string_lossy().ends_with(".tar.gz"))
        .expect("a source distribution was built");
    let listing = ok(Command::new("tar").arg("tzf").arg(sdist));
    let listing = String::from_utf8_lossy(&listing.stdout);
    for part in [
        "Cargo.lock",
        "pyproject.toml",
        "python/src/lower.rs",
        "rules/src/lib.rs",
    ] {
        assert!(listing.contains(part), "the sdist lacks {part}:\n{listing}");
    }

    // A fresh virtualenv on a machine without Rust: pip installs the wheel and nothing compiles.
    let user_dir = tmp.path().join("user");
    ok(Command::new("python3").args(["-m", "venv"]).arg(&user_dir));
    let user = user_dir.join("bin");
    ok(without_rust(&mut Command::new(user.join("pip")), &user)
        .args(["install", "--quiet", "--disable-pip-version-check"])
        .arg(&wheel)
        .arg("pre-commit>=3,<5"));
    // pipx installs the same wheel as an application of its own.
    ok(Command::new(user.join("pip")).args([
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "pipx",
    ]));
    let pipx_home = tmp.path().join("pipx");
    ok(without_rust(&mut Command::new(user.join("pipx")), &user)
        .arg("install")
        .arg(&wheel)
        .env("PIPX_HOME", &pipx_home)
        .env("PIPX_BIN_DIR", pipx_home.join("bin")));
    let version = ok(Command::new(pipx_home.join("bin/gpulint")).arg("--version"));
    assert!(String::from_utf8_lossy(&version.stdout).contains("0.1.0"));
    // So does uv, as a tool.
    ok(Command::new(user.join("pip")).args([
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "uv",
    ]));
    let uv_home = tmp.path().join("uv");
    ok(without_rust(&mut Command::new(user.join("uv")), &user)
        .args(["tool", "install", "--offline", "--python"])
        .arg(user.join("python"))
        .arg(&wheel)
        .env("UV_TOOL_DIR", uv_home.join("tools"))
        .env("UV_TOOL_BIN_DIR", uv_home.join("bin"))
        .env("UV_CACHE_DIR", uv_home.join("cache")));
    let version = ok(Command::new(uv_home.join("bin/gpulint")).arg("--version"));
    assert!(String::from_utf8_lossy(&version.stdout).contains("0.1.0"));
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

/// Copies the files git tracks into `to`: the source a clone (pre-commit's) would have.
fn copy_tracked(to: &Path) {
    let files = ok(Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root()));
    for file in files.stdout.split(|b| *b == 0).filter(|f| !f.is_empty()) {
        let file = String::from_utf8_lossy(file).to_string();
        fs::create_dir_all(to.join(&file).parent().unwrap()).unwrap();
        fs::copy(root().join(&file), to.join(&file)).unwrap();
    }
}

#[test]
#[ignore = "slow: pre-commit builds the hook from source (run with --include-ignored)"]
fn pre_commit_runs_the_hook_from_this_repository() {
    let tmp = tempfile::tempdir().unwrap();
    let tools = venv(
        &tmp.path().join("tools"),
        &["pre-commit>=3,<5", "maturin>=1.5,<2"],
    );

    // pip builds the hook as pre-commit asks it to, through maturin, which keeps to Cargo.lock:
    // with a manifest that needs a dependency the lock does not give, the build stops.
    let stale = tmp.path().join("stale");
    copy_tracked(&stale);
    let manifest = fs::read_to_string(stale.join("Cargo.toml")).unwrap();
    let changed = manifest.replacen("anyhow = \"1\"\n", "anyhow = \"1\"\nitoa = \"1\"\n", 1);
    assert_ne!(changed, manifest);
    fs::write(stale.join("Cargo.toml"), changed).unwrap();
    let refused = run(Command::new(tools.join("pip"))
        .args(["wheel", "--no-deps", "--no-build-isolation", "--wheel-dir"])
        .arg(tmp.path().join("refused"))
        .arg(&stale)
        .env(
            "PATH",
            format!("{}:{}", tools.display(), std::env::var("PATH").unwrap()),
        )
        .env("CARGO_NET_OFFLINE", "true"));
    let text = String::from_utf8_lossy(&refused.stdout).to_string()
        + &String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{text}");
    assert!(text.contains("--locked was passed"), "{text}");

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
    let target_dir = Path::new(env!("CARGO_BIN_EXE_gpulint"))
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .to_path_buf();
    let try_repo = || {
        run(Command::new(tools.join("pre-commit"))
            .arg("try-repo")
            .arg(root())
            .args(["gpulint", "--all-files"])
            .env("PRE_COMMIT_HOME", tmp.path().join("cache"))
            .env("MATURIN_PEP517_ARGS", "--profile dev")
            .env("CARGO_TARGET_DIR", &target_dir)
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
