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
        .output()
        .expect("the gpulint binary runs")
}

/// (relative path, line) → sorted codes, where GPU003 and GPU005 carry their severity:
/// `GPU003(warning)`.
pub type Findings = BTreeMap<(String, u32), Vec<String>>;

/// Reads `# expect: GPU001, GPU003(error)` markers from every `.py` file under `dir`.
pub fn expected(dir: &Path) -> Findings {
    let mut out = Findings::new();
    for path in python_files(dir) {
        let text = std::fs::read_to_string(&path).expect("fixture is UTF-8");
        let rel = path
            .strip_prefix(dir)
            .expect("under dir")
            .display()
            .to_string();
        for (i, line) in text.lines().enumerate() {
            if let Some((_, codes)) = line.split_once("# expect:") {
                let mut codes: Vec<String> =
                    codes.split(',').map(|c| c.trim().to_string()).collect();
                codes.sort();
                out.insert((rel.clone(), i as u32 + 1), codes);
            }
        }
    }
    out
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
        let rel = file
            .strip_prefix(&base)
            .expect("inside dir")
            .display()
            .to_string();
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
