//! The pre-commit hook builds what Cargo.lock says. pre-commit installs a `language: python` hook
//! with `pip install .` of a clone of this repository; pip hands the build to maturin
//! (pyproject.toml), and maturin runs cargo with `--locked` when `[tool.maturin]` says `locked`.
//! These checks read those files and ask cargo, offline, what that build resolves to on this
//! platform; that maturin
//! really passes `--locked` (a stale lock file stops the build) is checked by tests/packaging.rs,
//! which has maturin installed.

mod common;

use std::collections::BTreeSet;
use std::fs;
use std::process::Command;

use common::root;
use yaml_rust2::YamlLoader;

fn pyproject() -> toml::Table {
    fs::read_to_string(root().join("pyproject.toml"))
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn the_hook_is_installed_by_pip_through_maturin_locked() {
    let hooks = YamlLoader::load_from_str(
        &fs::read_to_string(root().join(".pre-commit-hooks.yaml")).unwrap(),
    )
    .unwrap();
    let hook = &hooks[0][0];
    assert_eq!(hook["id"].as_str(), Some("gpulint"));
    assert_eq!(hook["language"].as_str(), Some("python"));
    assert_eq!(
        hook["entry"].as_str(),
        Some("gpulint check --force-exclude")
    );

    let pyproject = pyproject();
    assert_eq!(
        pyproject["build-system"]["build-backend"].as_str(),
        Some("maturin")
    );
    let maturin = &pyproject["tool"]["maturin"];
    assert_eq!(maturin["bindings"].as_str(), Some("bin"));
    assert_eq!(maturin["locked"].as_bool(), Some(true), "{maturin}");
    // What pre-commit clones is what git tracks: the lock file must be there.
    let tracked = Command::new("git")
        .args([
            "ls-files",
            "--error-unmatch",
            "Cargo.lock",
            "pyproject.toml",
        ])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(tracked.status.success(), "{tracked:?}");
}

/// `(name, version, source)` of each package: the source is `None` for this workspace's own.
type Resolved = BTreeSet<(String, String, Option<String>)>;

#[test]
fn the_hook_builds_exactly_the_versions_of_cargo_lock() {
    let manifest = pyproject()["tool"]["maturin"]["manifest-path"]
        .as_str()
        .unwrap_or("Cargo.toml")
        .to_string();
    // What maturin's `cargo metadata --locked` sees: it fails where Cargo.lock would have to change.
    // For this machine's platform: the other platforms' crates were never downloaded here.
    let rustc = Command::new("rustc").arg("-vV").output().unwrap();
    let rustc = String::from_utf8_lossy(&rustc.stdout).to_string();
    let host = rustc
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .expect("rustc names its host");
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--locked", "--offline", "--format-version", "1"])
        .args(["--filter-platform", host])
        .arg("--manifest-path")
        .arg(root().join(&manifest))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let metadata: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let resolved: Resolved = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["version"].as_str().unwrap().to_string(),
                p["source"].as_str().map(str::to_string),
            )
        })
        .collect();

    let lock: toml::Table = fs::read_to_string(root().join("Cargo.lock"))
        .unwrap()
        .parse()
        .unwrap();
    let locked: Resolved = lock["package"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["version"].as_str().unwrap().to_string(),
                p.get("source").and_then(|s| s.as_str()).map(str::to_string),
            )
        })
        .collect();
    assert!(resolved.len() > 100, "{} packages", resolved.len());
    // Each package the build resolves is Cargo.lock's, at its version and from its source.
    let not_locked: Vec<_> = resolved.difference(&locked).collect();
    assert!(not_locked.is_empty(), "not as locked: {not_locked:?}");
    // The binary the hook runs is among them, at this version.
    assert!(resolved.contains(&(
        "gpulint".to_string(),
        env!("CARGO_PKG_VERSION").to_string(),
        None
    )));
}
