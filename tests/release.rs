//! The release workflow (`.github/workflows/release.yml`) builds every wheel the project promises,
//! from the distributed profile, and publishes them all by trusted publishing; its version check
//! runs here as the runner runs it. Building the wheels themselves needs GitHub's runners (and
//! docker images); tests/packaging.rs builds the x86-64 Linux one.

mod common;
mod runner;

use std::collections::BTreeSet;
use std::fs;
use std::process::Command;

use common::root;
use runner::load;

#[test]
fn the_workflow_builds_the_seven_wheels_and_the_sdist_from_the_dist_profile() {
    let workflow = load(&root().join(".github/workflows/release.yml"));
    let jobs = &workflow["jobs"];
    let mut targets = BTreeSet::new();
    for job in ["linux", "macos", "windows"] {
        let steps = jobs[job]["steps"].as_vec().unwrap();
        let build = steps
            .iter()
            .find(|s| {
                s["uses"]
                    .as_str()
                    .is_some_and(|u| u.starts_with("PyO3/maturin-action@"))
            })
            .unwrap_or_else(|| panic!("{job} builds with maturin"));
        assert_eq!(
            build["with"]["args"].as_str(),
            Some("${{ env.MATURIN_ARGS }}")
        );
        let matrix = &jobs[job]["strategy"]["matrix"];
        if matrix.is_badvalue() {
            targets.insert(build["with"]["target"].as_str().unwrap().to_string());
            continue;
        }
        let rows = if matrix["include"].is_badvalue() {
            &matrix["target"]
        } else {
            &matrix["include"]
        };
        for row in rows.as_vec().unwrap() {
            let target = row["target"].as_str().or_else(|| row.as_str()).unwrap();
            let tag = row["manylinux"].as_str().unwrap_or("");
            targets.insert(format!("{target} {tag}").trim().to_string());
        }
    }
    let expected: BTreeSet<String> = [
        "x86_64-unknown-linux-gnu manylinux2014",
        "aarch64-unknown-linux-gnu manylinux2014",
        "x86_64-unknown-linux-musl musllinux_1_2",
        "aarch64-unknown-linux-musl musllinux_1_2",
        "aarch64-apple-darwin",
        "x86_64-apple-darwin",
        "x86_64-pc-windows-msvc",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(targets, expected);
    assert_eq!(
        workflow["env"]["MATURIN_ARGS"].as_str(),
        Some("--profile dist --out dist")
    );
    let manifest = fs::read_to_string(root().join("Cargo.toml")).unwrap();
    assert!(manifest.contains("\n[profile.dist]\n"));
    let sdist = jobs["sdist"]["steps"].as_vec().unwrap();
    assert!(sdist
        .iter()
        .any(|s| s["with"]["command"].as_str() == Some("sdist")));

    // Published only from a tag, after every build, with the job's identity and no token.
    let publish = &jobs["publish"];
    assert_eq!(
        publish["if"].as_str(),
        Some("startsWith(github.ref, 'refs/tags/v')")
    );
    let needs: BTreeSet<&str> = publish["needs"]
        .as_vec()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert_eq!(
        needs,
        BTreeSet::from(["sdist", "linux", "macos", "windows"])
    );
    assert_eq!(publish["permissions"]["id-token"].as_str(), Some("write"));
    let steps = publish["steps"].as_vec().unwrap();
    let upload = steps.last().unwrap();
    assert!(upload["uses"]
        .as_str()
        .unwrap()
        .starts_with("pypa/gh-action-pypi-publish@"));
    assert!(upload["with"].is_badvalue(), "no password, no token");
}

#[test]
fn a_tag_that_is_not_the_version_stops_the_release() {
    let workflow = load(&root().join(".github/workflows/release.yml"));
    let check = workflow["jobs"]["sdist"]["steps"]
        .as_vec()
        .unwrap()
        .iter()
        .find(|s| s["name"].as_str() == Some("The tag names the version being built"))
        .unwrap()["run"]
        .as_str()
        .unwrap()
        .to_string();
    let run = |tag: &str| {
        Command::new("bash")
            .args(["-e", "-c", &check])
            .current_dir(root())
            .env("GITHUB_REF_NAME", tag)
            .output()
            .unwrap()
    };
    let version = env!("CARGO_PKG_VERSION");
    assert!(run(&format!("v{version}")).status.success());
    let wrong = run("v9.9.9");
    assert!(!wrong.status.success());
    assert!(String::from_utf8_lossy(&wrong.stdout).contains(&format!(
        "::error::tag v9.9.9, Cargo.toml {version}, pyproject.toml {version}"
    )));
}
