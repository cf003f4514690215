//! Which files are checked: ignored and environment folders, `exclude`, `--extend-exclude`,
//! `--force-exclude`, `--show-files`.

use super::*;

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
