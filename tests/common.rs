//! Helpers shared by the integration tests: run the built binary, read expectation markers.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn gpulint(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env("GPULINT_CACHE_DIR", cache_dir())
        // The developer's active environment is not the fixtures' (tests of it set their own).
        .env_remove("VIRTUAL_ENV")
        .output()
        .expect("the gpulint binary runs")
}

/// Where the tests' runs keep their cache: out of the checked-in fixtures, and shared, so that most
/// tests run once cold and, when repeated, from the cache.
pub fn cache_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("gpulint-cache")
}

/// (relative path, line) → sorted codes, where GPU003 and GPU005 carry their severity:
/// `GPU003(warning)`. In a notebook the path is `path:cell N` and the line counts in the cell.
pub type Findings = BTreeMap<(String, u32), Vec<String>>;

/// Reads `# expect: GPU001, GPU003(error)` markers from every `.py` file and notebook under `dir`,
/// and `// expect: GPU101` markers from every `.rs` file.
pub fn expected(dir: &Path) -> Findings {
    let mut out = Findings::new();
    for path in case_files(dir) {
        let rel = path
            .strip_prefix(dir)
            .expect("under dir")
            .display()
            .to_string();
        for (place, text) in sources(&path, &rel) {
            // `# expect:` in Python, `// expect:` in Rust.
            let marker = if path.extension().is_some_and(|e| e == "rs") {
                "// expect:"
            } else {
                "# expect:"
            };
            for (i, line) in text.lines().enumerate() {
                if let Some((_, codes)) = line.split_once(marker) {
                    let mut codes: Vec<String> =
                        codes.split(',').map(|c| c.trim().to_string()).collect();
                    codes.sort();
                    out.insert((place.clone(), i as u32 + 1), codes);
                }
            }
        }
    }
    out
}

/// The texts markers are read from: a file's, or each code cell's of a notebook (`rel:cell N`).
fn sources(path: &Path, rel: &str) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(path).expect("fixture is UTF-8");
    if path.extension().is_none_or(|e| e != "ipynb") {
        return vec![(rel.to_string(), text)];
    }
    notebook_cells(&text)
        .into_iter()
        .map(|(cell, source)| (format!("{rel}:cell {cell}"), source))
        .collect()
}

/// A notebook's code cells: their 1-based number among all cells, and their source.
pub fn notebook_cells(json: &str) -> Vec<(u32, String)> {
    let notebook: serde_json::Value = serde_json::from_str(json).expect("fixture notebook is JSON");
    let cells = notebook["cells"].as_array().expect("a notebook has cells");
    let mut out = Vec::new();
    for (i, cell) in cells.iter().enumerate() {
        if cell["cell_type"] != "code" {
            continue;
        }
        let source = match &cell["source"] {
            serde_json::Value::Array(lines) => lines
                .iter()
                .map(|l| l.as_str().expect("a line is text"))
                .collect(),
            other => other.as_str().expect("source is text").to_string(),
        };
        out.push((i as u32 + 1, source));
    }
    out
}

/// Every case file under `dir`: Python files, notebooks and Rust files, sorted.
pub fn case_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = python_files(dir);
    files.extend(files_with_extension(dir, "ipynb"));
    files.extend(files_with_extension(dir, "rs"));
    files.sort();
    files
}

pub fn python_files(dir: &Path) -> Vec<PathBuf> {
    files_with_extension(dir, "py")
}

/// Every file under `dir` (recursively) whose extension is `ext`, sorted.
pub fn files_with_extension(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).expect("readable dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                todo.push(path);
            } else if path.extension().is_some_and(|e| e == ext) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Runs `gpulint check --output-format json dir` and groups its findings like [`expected`].
pub fn found(dir: &Path) -> Findings {
    let output = gpulint(&["check", "--output-format", "json", "."], dir);
    assert!(output.status.code().is_some_and(|c| c <= 1), "{output:?}");
    let messages: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON output");
    let base = std::fs::canonicalize(dir).expect("dir exists");
    let mut out = Findings::new();
    for m in messages.as_array().expect("an array") {
        let file = PathBuf::from(m["filename"].as_str().expect("filename"));
        let file = std::fs::canonicalize(&file).unwrap_or(file);
        let mut rel = file
            .strip_prefix(&base)
            .expect("inside dir")
            .display()
            .to_string();
        if let Some(cell) = m["cell"].as_u64() {
            rel = format!("{rel}:cell {cell}");
        }
        let row = m["location"]["row"].as_u64().expect("row") as u32;
        let code = m["code"].as_str().expect("code");
        let code = if code == "GPU003" || code == "GPU005" {
            format!("{code}({})", m["severity"].as_str().expect("severity"))
        } else {
            code.to_string()
        };
        let codes = out.entry((rel, row)).or_default();
        codes.push(code);
        codes.sort();
    }
    out
}

/// Every difference between expected and found findings, one line each.
pub fn mismatches(expected: &Findings, found: &Findings) -> Vec<String> {
    let mut keys: Vec<_> = expected.keys().chain(found.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter_map(|k| {
            let (e, f) = (expected.get(k), found.get(k));
            (e != f).then(|| format!("{}:{}: expected {:?}, found {:?}", k.0, k.1, e, f))
        })
        .collect()
}

/// A `gpulint check --output-format json ARGS` run, measured by the kernel's accounting of that
/// one child: its own CPU time and peak memory, never the wall clock (a loaded machine slows a run
/// without making it do more work).
pub struct Measured {
    pub code: Option<i32>,
    /// User and system seconds, all its threads.
    pub cpu_seconds: f64,
    pub peak_mib: i64,
    /// (file name, line, code, message)
    pub findings: Vec<(String, u64, String, String)>,
}

// The child is reaped by `wait4`, which also gives its resource usage.
#[allow(clippy::zombie_processes)]
pub fn check_measured(dir: &Path, args: &[&str]) -> Measured {
    let out_dir = tempfile::tempdir().unwrap();
    let out_path = out_dir.path().join("out.json");
    let child = Command::new(env!("CARGO_BIN_EXE_gpulint"))
        // Measures an analysis, not a cache's answer.
        .args(["check", "--no-cache", "--output-format", "json"])
        .args(args)
        .current_dir(dir)
        .env_remove("VIRTUAL_ENV")
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("gpulint runs");
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: the child is ours and not reaped elsewhere.
    let reaped = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(reaped, child.id() as libc::pid_t, "wait4");
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    let stdout = std::fs::read(&out_path).unwrap_or_default();
    let json: serde_json::Value = serde_json::from_slice(&stdout).unwrap_or_default();
    let findings = json
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| {
            let file = Path::new(m["filename"].as_str().unwrap_or_default())
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            (
                file,
                m["location"]["row"].as_u64().unwrap_or_default(),
                m["code"].as_str().unwrap_or_default().to_string(),
                m["message"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    Measured {
        code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        cpu_seconds: seconds(usage.ru_utime) + seconds(usage.ru_stime),
        // Linux reports kilobytes.
        peak_mib: usage.ru_maxrss / 1024,
        findings,
    }
}

/// Copies the folder `from` to `to`, recursively.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}
