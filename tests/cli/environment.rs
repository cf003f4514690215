//! Installed packages: a call into a package no library row covers is followed into its code when
//! the project's environment is found (`--python`, `python` in the configuration, `VIRTUAL_ENV`,
//! `.venv`); its findings are shown at the project's call, the package's line related.

use super::*;

/// A package whose loader hands each item to a pool of workers made with the default start
/// method (fork on Linux before 3.14), running the caller's function in them.
const LOADER_INIT: &str = "from .feed import Feeder\n";
const LOADER_FEED: &str = "\
import multiprocessing


class Feeder:
    def __init__(self, items, workers=2):
        self.items = list(items)
        self.workers = workers

    def iterate(self, handle):
        pool = multiprocessing.Pool(self.workers)
        try:
            return pool.map(handle, self.items)
        finally:
            pool.close()
";

/// The pool is made on line 10 of `feed.py`.
const POOL_LINE: u64 = 10;

/// The script: CUDA initialised, then the loader runs a task that uses CUDA (line 14).
const SCRIPT: &str = "\
import torch
from tinyfeed import Feeder

weights = torch.zeros(1, device=\"cuda\")


def embed(item):
    return torch.full((2,), item, device=\"cuda\").sum().item()


def main():
    feeder = Feeder(range(6))
    totals = []
    totals.extend(feeder.iterate(embed))
    return totals


if __name__ == \"__main__\":
    main()
";
const CALL_LINE: u64 = 14;

/// `root/env`: a virtual environment's layout holding the loader package; `root/project/run.py`.
fn write_layout(root: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let env = root.join("env");
    let package = env.join("lib/python3.11/site-packages/tinyfeed");
    fs::create_dir_all(&package).unwrap();
    fs::write(
        env.join("pyvenv.cfg"),
        "home = /usr/bin\nversion = 3.11.4\n",
    )
    .unwrap();
    fs::write(package.join("__init__.py"), LOADER_INIT).unwrap();
    fs::write(package.join("feed.py"), LOADER_FEED).unwrap();
    fs::create_dir_all(env.join("bin")).unwrap();
    fs::write(env.join("bin/python"), "").unwrap();
    let project = root.join("project");
    fs::create_dir_all(&project).unwrap();
    fs::write(project.join("run.py"), SCRIPT).unwrap();
    (env, project)
}

/// `gpulint check --output-format json ARGS run.py` in `project`, with `VIRTUAL_ENV` as given.
fn check_json(project: &Path, args: &[&str], venv: Option<&Path>) -> serde_json::Value {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_gpulint"));
    command
        .args(["check", "--no-cache", "--output-format", "json"])
        .args(args)
        .arg("run.py")
        .current_dir(project)
        .env("NO_COLOR", "1")
        .env_remove("VIRTUAL_ENV");
    if let Some(venv) = venv {
        command.env("VIRTUAL_ENV", venv);
    }
    let out = command.output().unwrap();
    assert!(out.status.code().is_some_and(|c| c <= 1), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A finding's code, file name and row, and its related locations' file names and rows.
type Finding = (String, String, u64, Vec<(String, u64)>);

/// Each finding of a JSON report (see [`Finding`]).
fn summary(json: &serde_json::Value) -> Vec<Finding> {
    json.as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let related = d["related"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| {
                    (
                        r["filename"].as_str().unwrap().replace('\\', "/"),
                        r["location"]["row"].as_u64().unwrap(),
                    )
                })
                .collect();
            (
                d["code"].as_str().unwrap().to_string(),
                d["filename"].as_str().unwrap().replace('\\', "/"),
                d["location"]["row"].as_u64().unwrap(),
                related,
            )
        })
        .collect()
}

/// One GPU001 at the script's call of the loader, with the pool's line in the package related,
/// and no fix (the fix would be the package's to make).
fn assert_found_at_the_call(json: &serde_json::Value) {
    let found = summary(json);
    assert_eq!(found.len(), 1, "{json:#}");
    let (code, file, row, related) = &found[0];
    assert_eq!(code, "GPU001");
    assert!(file.ends_with("run.py"), "{file}");
    assert_eq!(*row, CALL_LINE);
    assert!(
        related
            .iter()
            .any(|(f, r)| f.ends_with("site-packages/tinyfeed/feed.py") && *r == POOL_LINE),
        "{related:?}"
    );
    assert!(json[0]["fix"].is_null(), "{json:#}");
    let message = json[0]["message"].as_str().unwrap();
    assert!(
        message.ends_with("(inside `tinyfeed`, run by this call)"),
        "{message}"
    );
}

#[test]
fn a_fork_inside_an_installed_loader_is_reported_at_the_projects_call() {
    let dir = tempfile::tempdir().unwrap();
    let (env, project) = write_layout(dir.path());
    let env = env.to_str().unwrap();
    assert_found_at_the_call(&check_json(&project, &["--python", env], None));
    // The interpreter's path names the same environment, read from its layout.
    let python = format!("{env}/bin/python");
    assert_found_at_the_call(&check_json(&project, &["--python", &python], None));
    assert_found_at_the_call(&check_json(&project, &[], Some(Path::new(env))));
}

#[test]
fn without_an_environment_the_loader_is_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let (env, project) = write_layout(dir.path());
    assert!(summary(&check_json(&project, &[], None)).is_empty());
    // Turned off, on the command line or in the configuration.
    assert!(summary(&check_json(&project, &["--no-python"], Some(&env))).is_empty());
    fs::write(project.join("gpulint.toml"), "python = false\n").unwrap();
    assert!(summary(&check_json(&project, &[], Some(&env))).is_empty());
}

#[test]
fn the_configuration_and_a_venv_in_the_project_name_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let (env, project) = write_layout(dir.path());
    fs::write(
        project.join("gpulint.toml"),
        format!("python = {:?}\n", env.to_str().unwrap()),
    )
    .unwrap();
    assert_found_at_the_call(&check_json(&project, &[], None));
    fs::remove_file(project.join("gpulint.toml")).unwrap();
    fs::write(project.join("pyproject.toml"), "[project]\nname = \"p\"\n").unwrap();
    fs::rename(&env, project.join(".venv")).unwrap();
    assert_found_at_the_call(&check_json(&project, &[], None));
}

#[test]
fn a_named_environment_without_packages_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let (_, project) = write_layout(dir.path());
    let out = gpulint(&["check", "--python", "nowhere", "run.py"], &project);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(stderr(&out).contains("nowhere"), "{}", stderr(&out));
    let empty = dir.path().join("empty");
    fs::create_dir(&empty).unwrap();
    let out = gpulint(
        &["check", "--python", empty.to_str().unwrap(), "run.py"],
        &project,
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(stderr(&out).contains("site-packages"), "{}", stderr(&out));
}

#[test]
fn packages_are_never_reported_on_and_rows_keep_their_packages() {
    let dir = tempfile::tempdir().unwrap();
    let (env, project) = write_layout(dir.path());
    let site = env.join("lib/python3.11/site-packages");
    // A package that does not parse is not the project's to report.
    fs::create_dir_all(site.join("broken")).unwrap();
    fs::write(site.join("broken/__init__.py"), "def (:\n").unwrap();
    // A `torch` of the environment is never read: its rows decide it (were its code followed,
    // these stand-ins would make nothing of CUDA, and nothing would be found).
    fs::create_dir_all(site.join("torch")).unwrap();
    fs::write(
        site.join("torch/__init__.py"),
        "def zeros(*args, **kwargs):\n    return 0\n\n\ndef full(*args, **kwargs):\n    return 0\n",
    )
    .unwrap();
    fs::write(project.join("run.py"), format!("import broken\n{SCRIPT}")).unwrap();
    let found = summary(&check_json(
        &project,
        &["--python", env.to_str().unwrap()],
        None,
    ));
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "GPU001");
    assert_eq!(found[0].2, CALL_LINE + 1);
    for (_, file, _, related) in &found {
        assert!(!file.contains("site-packages"), "{file}");
        assert!(
            related
                .iter()
                .all(|(f, _)| !f.contains("site-packages/torch")
                    && !f.contains("site-packages/broken")),
            "{related:?}"
        );
    }
    let shown = shown_files(&["--python", env.to_str().unwrap(), "run.py"], &project);
    assert_eq!(shown.len(), 1, "{shown:?}");
}

#[test]
fn a_package_that_initialises_cuda_at_import_is_followed() {
    let dir = tempfile::tempdir().unwrap();
    let (env, project) = write_layout(dir.path());
    let package = env.join("lib/python3.11/site-packages/gpupick");
    fs::create_dir_all(&package).unwrap();
    // Line 3 asks the driver whether a GPU is there, when the package is imported.
    fs::write(
        package.join("__init__.py"),
        "import torch\n\nTARGET = \"cuda\" if torch.cuda.is_available() else \"cpu\"\n",
    )
    .unwrap();
    fs::write(
        project.join("run.py"),
        "import multiprocessing\nimport torch\nimport gpupick\n\n\ndef square(n):\n    return torch.ones(n, device=\"cuda\").sum().item()\n\n\nif __name__ == \"__main__\":\n    with multiprocessing.Pool(2) as pool:\n        print(pool.map(square, [1, 2]))\n",
    )
    .unwrap();
    let with = summary(&check_json(
        &project,
        &["--python", env.to_str().unwrap()],
        None,
    ));
    assert_eq!(with.len(), 1, "{with:?}");
    let (code, file, row, related) = &with[0];
    assert_eq!((code.as_str(), *row), ("GPU001", 11));
    assert!(file.ends_with("run.py"), "{file}");
    assert!(
        related
            .iter()
            .any(|(f, r)| f.ends_with("site-packages/gpupick/__init__.py") && *r == 3),
        "{related:?}"
    );
    // And the project's line that imports it.
    assert!(
        related
            .iter()
            .any(|(f, r)| f.ends_with("run.py") && *r == 3),
        "{related:?}"
    );
    assert!(summary(&check_json(&project, &[], None)).is_empty());
}

#[test]
fn packages_that_start_processes_their_own_way_are_left_to_the_rows() {
    let dir = tempfile::tempdir().unwrap();
    let (env, project) = write_layout(dir.path());
    let site = env.join("lib/python3.11/site-packages");
    // The same loader under the name of a package whose launcher starts fresh interpreters: its
    // code is not read as the plain fork it would look like.
    fs::create_dir_all(site.join("joblib")).unwrap();
    fs::write(site.join("joblib/__init__.py"), LOADER_INIT).unwrap();
    fs::write(site.join("joblib/feed.py"), LOADER_FEED).unwrap();
    fs::write(
        project.join("run.py"),
        SCRIPT.replace("from tinyfeed import", "from joblib import"),
    )
    .unwrap();
    let env = env.to_str().unwrap();
    assert!(summary(&check_json(&project, &["--python", env], None)).is_empty());
}

#[test]
fn a_helper_installed_in_editable_mode_is_followed_into_its_source() {
    let dir = tempfile::tempdir().unwrap();
    let (env, project) = write_layout(dir.path());
    let site = env.join("lib/python3.11/site-packages");
    fs::remove_dir_all(site.join("tinyfeed")).unwrap();
    // The loader's source sits in another checkout; a `.pth` file puts it on the import path.
    let source = dir.path().join("checkouts/tinyfeed/src");
    fs::create_dir_all(source.join("tinyfeed")).unwrap();
    fs::write(source.join("tinyfeed/__init__.py"), LOADER_INIT).unwrap();
    fs::write(source.join("tinyfeed/feed.py"), LOADER_FEED).unwrap();
    fs::write(
        site.join("__editable__.tinyfeed-0.3.pth"),
        format!("{}\n", source.display()),
    )
    .unwrap();
    let json = check_json(&project, &["--python", env.to_str().unwrap()], None);
    let found = summary(&json);
    assert_eq!(found.len(), 1, "{json:#}");
    assert_eq!(found[0].2, CALL_LINE);
    assert!(
        found[0].3.iter().any(
            |(f, r)| f.ends_with("checkouts/tinyfeed/src/tinyfeed/feed.py") && *r == POOL_LINE
        ),
        "{json:#}"
    );
}

#[test]
fn a_bad_python_key_is_a_configuration_error() {
    let dir = tempfile::tempdir().unwrap();
    let (_, project) = write_layout(dir.path());
    fs::write(project.join("gpulint.toml"), "python = 3\n").unwrap();
    let out = gpulint(&["check", "run.py"], &project);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(stderr(&out).contains("python is"), "{}", stderr(&out));
    // A path the configuration names is relative to its folder, and must hold packages.
    fs::write(project.join("gpulint.toml"), "python = \"missing-env\"\n").unwrap();
    let out = gpulint(&["check", "run.py"], &project);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(stderr(&out).contains("missing-env"), "{}", stderr(&out));
}

#[test]
fn the_cache_sees_a_package_change() {
    let dir = tempfile::tempdir().unwrap();
    let (env, project) = write_layout(dir.path());
    let cache = dir.path().join("cache");
    let run = || {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_gpulint"))
            .args(["check", "--output-format", "concise", "-q", "--cache-dir"])
            .arg(&cache)
            .args(["--python", env.to_str().unwrap(), "run.py"])
            .current_dir(&project)
            .env_remove("VIRTUAL_ENV")
            .output()
            .unwrap();
        stdout(&out)
    };
    let cold = run();
    assert!(cold.contains("GPU001"), "{cold}");
    assert_eq!(run(), cold);
    // The package now starts its workers by spawn: nothing to report.
    let feed = env.join("lib/python3.11/site-packages/tinyfeed/feed.py");
    let spawned = LOADER_FEED.replace(
        "multiprocessing.Pool(",
        "multiprocessing.get_context(\"spawn\").Pool(",
    );
    fs::write(&feed, spawned).unwrap();
    assert_eq!(run(), "");
    // Removed from the environment: nothing to follow.
    fs::write(&feed, LOADER_FEED).unwrap();
    assert_eq!(run(), cold);
    fs::remove_dir_all(feed.parent().unwrap()).unwrap();
    assert_eq!(run(), "");
}

#[test]
fn a_package_checked_in_place_is_the_project() {
    let dir = tempfile::tempdir().unwrap();
    let (env, _) = write_layout(dir.path());
    let package = env.join("lib/python3.11/site-packages/tinyfeed");
    fs::write(package.join("job.py"), SCRIPT).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .args([
            "check",
            "--no-cache",
            "--output-format",
            "concise",
            "-q",
            ".",
        ])
        .current_dir(&package)
        .env("VIRTUAL_ENV", &env)
        .output()
        .unwrap();
    let found = stdout(&out);
    // Its own modules are checked and reported on, as without an environment.
    assert!(found.starts_with("feed.py:10:"), "{found}");
}
