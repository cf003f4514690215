//! `--target rust`: `gpulint check` on the cases `rust_gen.rs` makes, each beside a known hazard
//! whose finding must survive (in the formats that print a finding a line).

use std::path::Path;
use std::time::{Duration, Instant};

use crate::rng::Rng;
use crate::{child, rust_gen, Options, Summary, FORMATS};

const MAX_CPU_SECONDS: f64 = 2.0;
const MAX_MIB: i64 = 200;

/// Formats that put one finding on one line, where the sentinel's finding is looked for.
const LINE_FORMATS: &[&str] = &["concise", "github", "json-lines"];

pub fn fuzz(options: &Options) -> Summary {
    let mut rng = Rng(options.seed.max(1));
    let deadline = Instant::now() + Duration::from_secs(options.seconds);
    let mut summary = Summary::default();
    while Instant::now() < deadline {
        let dir = tempfile::tempdir().expect("temp dir");
        let case = rust_gen::case(&mut rng);
        write_case(dir.path(), &case.files);
        let format = if rng.chance(80) {
            *rng.pick(LINE_FORMATS)
        } else {
            *rng.pick(FORMATS)
        };
        let args = ["check", "--output-format", format, &case.target];
        let outcome = child::run(&options.binary, &args, dir.path(), Duration::from_secs(20));
        summary.cases += 1;
        summary.note(outcome.cpu_seconds, outcome.peak_mib);
        let sentinel_kept = !LINE_FORMATS.contains(&format)
            || outcome
                .stdout
                .lines()
                .any(|l| l.contains(rust_gen::SENTINEL.0) && l.contains("GPU101"));
        let problem = if summary.cases <= options.samples {
            Some("sample".to_string())
        } else if let Some(problem) = outcome.problem(MAX_CPU_SECONDS, MAX_MIB) {
            Some(problem)
        } else if !sentinel_kept && case.target == "." {
            Some("the sentinel's finding was lost".to_string())
        } else {
            None
        };
        if let Some(problem) = problem {
            let files: Vec<(String, Vec<u8>)> = case
                .files
                .iter()
                .map(|f| {
                    // Kept flat: a folder's `/` becomes `__`; a FIFO is kept as an empty file
                    // named `.fifo`.
                    let name = f.path.replace('/', "__");
                    match &f.bytes {
                        Some(bytes) => (name, bytes.clone()),
                        None => (format!("{name}.fifo"), Vec::new()),
                    }
                })
                .collect();
            let what = format!("check {} ({format}): {problem}", case.target);
            summary.keep(options, &what, &files);
        }
    }
    summary
}

/// Writes a case's files under `dir` (a FIFO where a file has no bytes).
fn write_case(dir: &Path, files: &[rust_gen::File]) {
    for f in files {
        let path = dir.join(&f.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("case folder");
        }
        match &f.bytes {
            Some(bytes) => std::fs::write(&path, bytes).expect("write"),
            None => {
                let c = std::ffi::CString::new(path.to_string_lossy().as_bytes()).expect("path");
                // SAFETY: a valid NUL-terminated path.
                unsafe { libc::mkfifo(c.as_ptr(), 0o644) };
            }
        }
    }
}
