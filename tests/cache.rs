//! The cache's invariant: findings are the same with and without it. Cold and warm runs print the
//! same bytes; a changed file, whether the checked one or one it imports, gives what a run without
//! the cache gives; runs at once leave a cache that reads back; a cache file cut short or
//! corrupted is ignored.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{copy_tree, root};

/// Runs the binary with its cache in `cache` (`None`: `--no-cache`), and `GPULINT_TIMINGS` set so
/// that a run answered from the cache says so.
fn run(args: &[&str], cwd: &Path, cache: Option<&Path>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_gpulint"));
    command
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env("GPULINT_TIMINGS", "1")
        .env_remove("GPULINT_CACHE_DIR");
    match cache {
        Some(dir) => command.arg("--cache-dir").arg(dir),
        None => command.arg("--no-cache"),
    };
    command.output().expect("the gpulint binary runs")
}

fn from_cache(out: &Output) -> bool {
    String::from_utf8_lossy(&out.stderr).contains("answered from the cache")
}

/// Stdout and the exit code: what must not depend on the cache.
fn seen(out: &Output) -> (Option<i32>, String) {
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn data_files(cache: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for version in std::fs::read_dir(cache).unwrap().flatten() {
        if version.file_type().unwrap().is_dir() {
            for file in std::fs::read_dir(version.path()).unwrap().flatten() {
                out.push(file.path());
            }
        }
    }
    out
}

#[test]
fn cold_and_warm_runs_print_the_same_bytes() {
    for tree in ["examples", "corpus"] {
        for format in ["full", "json", "concise"] {
            let cache = tempfile::tempdir().unwrap();
            let args = ["check", "--output-format", format, tree];
            let without = run(&args, &root(), None);
            let cold = run(&args, &root(), Some(cache.path()));
            let warm = run(&args, &root(), Some(cache.path()));
            assert!(
                !from_cache(&cold),
                "{tree} {format}: nothing was cached yet"
            );
            assert!(
                from_cache(&warm),
                "{tree} {format}: the warm run analysed again"
            );
            assert_eq!(seen(&cold), seen(&without), "{tree} {format}: cold");
            assert_eq!(seen(&warm), seen(&without), "{tree} {format}: warm");
        }
    }
}

#[test]
fn options_that_only_select_or_report_are_applied_to_cached_findings() {
    let cache = tempfile::tempdir().unwrap();
    run(&["check", "examples"], &root(), Some(cache.path()));
    for args in [
        vec!["check", "--select", "GPU002", "examples"],
        vec!["check", "--ignore", "GPU001", "--statistics", "examples"],
        vec![
            "check",
            "--output-format",
            "sarif",
            "--fail-on",
            "error",
            "examples",
        ],
    ] {
        let warm = run(&args, &root(), Some(cache.path()));
        assert!(from_cache(&warm), "{args:?}");
        assert_eq!(seen(&warm), seen(&run(&args, &root(), None)), "{args:?}");
    }
}

const MAIN: &str = "\
import multiprocessing as mp

import torch

from helper import setup


def work(x):
    return torch.ones(1).cuda() * x


if __name__ == \"__main__\":
    setup()
    with mp.Pool(2) as pool:
        pool.map(work, range(2))
";

#[test]
fn a_change_to_an_imported_module_updates_its_importers_findings() {
    let project = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let dir = project.path();
    std::fs::write(dir.join("pyproject.toml"), "[project]\nname = \"p\"\n").unwrap();
    std::fs::write(dir.join("main.py"), MAIN).unwrap();
    std::fs::write(
        dir.join("helper.py"),
        "import torch\n\n\ndef setup():\n    pass\n",
    )
    .unwrap();
    std::fs::write(dir.join("other.py"), "import torch\n\nx = torch.zeros(1)\n").unwrap();
    let args = ["check", "--output-format", "concise", "."];
    let before = run(&args, dir, Some(cache.path()));
    assert_eq!(seen(&before), seen(&run(&args, dir, None)));
    assert!(!String::from_utf8_lossy(&before.stdout).contains("GPU001"));
    // The helper now initialises CUDA before the pool forks.
    std::fs::write(
        dir.join("helper.py"),
        "import torch\n\n\ndef setup():\n    torch.cuda.init()\n",
    )
    .unwrap();
    let after = run(&args, dir, Some(cache.path()));
    assert!(!from_cache(&after));
    let text = String::from_utf8_lossy(&after.stdout).into_owned();
    assert!(
        text.contains("main.py") && text.contains("GPU001"),
        "{text}"
    );
    assert_eq!(seen(&after), seen(&run(&args, dir, None)));
    // And back: the finding goes.
    std::fs::write(
        dir.join("helper.py"),
        "import torch\n\n\ndef setup():\n    pass\n",
    )
    .unwrap();
    let back = run(&args, dir, Some(cache.path()));
    assert_eq!(seen(&back), seen(&before));
    let warm = run(&args, dir, Some(cache.path()));
    assert!(from_cache(&warm));
    assert_eq!(seen(&warm), seen(&before));
}

/// Each edit in turn, to a sample of the corpus's files: a body that runs at import, a function
/// that adds a name other files may reference, a syntax error; the cached run must print what a
/// run without the cache prints.
#[test]
fn edits_anywhere_in_the_corpus_give_the_findings_of_a_run_without_the_cache() {
    let tree = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    for dir in ["gpu001", "gpu003", "gpu013", "projects"] {
        copy_tree(&root().join("corpus").join(dir), &tree.path().join(dir));
    }
    let mut files: Vec<PathBuf> = Vec::new();
    let mut todo = vec![tree.path().to_path_buf()];
    while let Some(dir) = todo.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                todo.push(path);
            } else if path.extension().is_some_and(|e| e == "py") {
                files.push(path);
            }
        }
    }
    files.sort();
    let args = ["check", "--output-format", "json", "."];
    let cwd = tree.path();
    assert_eq!(
        seen(&run(&args, cwd, Some(cache.path()))),
        seen(&run(&args, cwd, None))
    );
    let edits = [
        "\n\ndef cache_probe_function(x):\n    return x\n",
        "\n\nimport torch\ntorch.cuda.init()\n",
        "\n\ndef broken(:\n",
    ];
    for (i, file) in files.iter().enumerate().filter(|(i, _)| i % 9 == 0) {
        let original = std::fs::read(file).unwrap();
        let edit = edits[i % edits.len()];
        let mut edited = original.clone();
        edited.extend_from_slice(edit.as_bytes());
        std::fs::write(file, &edited).unwrap();
        let cached = run(&args, cwd, Some(cache.path()));
        let without = run(&args, cwd, None);
        assert_eq!(
            seen(&cached),
            seen(&without),
            "{} edited with {edit:?}",
            file.display()
        );
        std::fs::write(file, &original).unwrap();
    }
    let warm = run(&args, cwd, Some(cache.path()));
    assert_eq!(seen(&warm), seen(&run(&args, cwd, None)));
}

#[test]
fn runs_at_once_leave_a_cache_that_reads_back() {
    let tree = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    copy_tree(&root().join("examples"), tree.path());
    let args = ["check", "."];
    let expected = seen(&run(&args, tree.path(), None));
    for _ in 0..3 {
        let children: Vec<_> = (0..4)
            .map(|_| {
                Command::new(env!("CARGO_BIN_EXE_gpulint"))
                    .args(args)
                    .arg("--cache-dir")
                    .arg(cache.path())
                    .current_dir(tree.path())
                    .env("NO_COLOR", "1")
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert_eq!(seen(&out), expected);
        }
    }
    let warm = run(&args, tree.path(), Some(cache.path()));
    assert!(from_cache(&warm));
    assert_eq!(seen(&warm), expected);
    let temporary: Vec<PathBuf> = data_files(cache.path())
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(temporary.is_empty(), "{temporary:?}");
}

#[test]
fn a_cache_file_cut_short_or_corrupted_is_ignored() {
    let cache = tempfile::tempdir().unwrap();
    let args = ["check", "examples"];
    let expected = seen(&run(&args, &root(), None));
    run(&args, &root(), Some(cache.path()));
    let files = data_files(cache.path());
    assert_eq!(files.len(), 1, "{files:?}");
    let whole = std::fs::read(&files[0]).unwrap();
    let mut flipped = whole.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x55;
    let damaged: [Vec<u8>; 5] = [
        whole[..whole.len() / 2].to_vec(),
        whole[..10].to_vec(),
        Vec::new(),
        flipped,
        b"not a cache at all".repeat(100),
    ];
    for bytes in damaged {
        std::fs::write(&files[0], &bytes).unwrap();
        let out = run(&args, &root(), Some(cache.path()));
        assert!(!from_cache(&out));
        assert_eq!(seen(&out), expected);
        assert!(String::from_utf8_lossy(&out.stderr)
            .lines()
            .all(|l| !l.contains("panicked")));
        // The run wrote a whole file again.
        assert!(from_cache(&run(&args, &root(), Some(cache.path()))));
    }
}

#[test]
fn the_cache_sits_at_the_project_root_and_no_cache_writes_none() {
    let project = tempfile::tempdir().unwrap();
    let dir = project.path();
    std::fs::write(dir.join("pyproject.toml"), "[project]\nname = \"p\"\n").unwrap();
    std::fs::create_dir(dir.join("src")).unwrap();
    std::fs::write(dir.join("src").join("train.py"), "import torch\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .args(["check", "--no-cache", "."])
        .current_dir(dir.join("src"))
        .env_remove("GPULINT_CACHE_DIR")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(!dir.join(".gpulint_cache").exists());
    assert!(!dir.join("src").join(".gpulint_cache").exists());
    let out = Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .args(["check", "."])
        .current_dir(dir.join("src"))
        .env_remove("GPULINT_CACHE_DIR")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let folder = dir.join(".gpulint_cache");
    assert_eq!(
        std::fs::read_to_string(folder.join(".gitignore"))
            .unwrap()
            .lines()
            .last(),
        Some("*")
    );
    assert!(std::fs::read_to_string(folder.join("CACHEDIR.TAG"))
        .unwrap()
        .starts_with("Signature: 8a477f597d28d172789f06886806bc55"));
    assert_eq!(data_files(&folder).len(), 1);
    // GPULINT_CACHE_DIR moves it.
    let elsewhere = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .args(["check", "."])
        .current_dir(dir.join("src"))
        .env("GPULINT_CACHE_DIR", elsewhere.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(data_files(elsewhere.path()).len(), 1);
}
