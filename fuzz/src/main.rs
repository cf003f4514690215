//! Structured fuzzing of the release binary. Each target generates inputs, runs gpulint on them
//! and keeps any input that crashes it, hangs it or makes it use more CPU time or memory (its own,
//! from `wait4`) than a bound:
//! - `--target python` (the default): `gpulint check`. Byte-level mutation of the corpus found
//!   nothing (191,600 runs); what breaks an abstract interpreter is structure: recursion, doubling
//!   values, deep chains, factories. This generates programs from the constructs the interpreter
//!   models (functions, classes, closures, branches, loops, comprehensions, imports between two
//!   modules, fork points) and calls to every library name in the tables, on a single file and on
//!   a two-module project in every output format; over 2 s of CPU or 200 MiB is a problem.
//! - `--target server`: `gpulint server`, one session per case: valid traffic (documents opened,
//!   changed in full and by ranges, some out of range, in storms; saves, closes, code actions,
//!   unknown methods), mutated messages, and frames that are not messages (huge, negative and
//!   missing lengths, bad headers, invalid UTF-8 or JSON, a truncated end). A request unanswered
//!   within 20 s, an exit that is not the one the session's end asks for, or over 300 MiB is a
//!   problem.
//! - `--target notebook`: `gpulint check` on generated `.ipynb` files: cells of every type,
//!   `source` as a string or a list split anywhere, magics continued with `\`, odd line ends; and
//!   mutations of them (invalid JSON, non-UTF-8, deep or huge JSON). A valid notebook must give
//!   no GPU999 and its fork finding on its cell and line; any notebook, no crash, under 5 s of CPU
//!   and 300 MiB.
//!
//! - `--target rust`: `gpulint check` on Rust cases (`rust_gen.rs`): loose files and packages with
//!   modules by file, generated from the Rust frontend's constructs and tables, deeply nested, or
//!   with bytes mutated, each beside a known hazard whose finding must still be reported; over 2 s
//!   of CPU or 200 MiB is a problem.
//!
//! `cargo build --release -p gpulint -p gpulint_fuzz && cargo run --release -p gpulint_fuzz --
//! [--target python|server|notebook|rust] [--seconds N] [--seed S] [--out DIR] [--samples N]`
//! (problems are kept under `DIR/<target>-case<N>/`, default `fuzz/found`).

mod child;
mod notebook;
mod python;
mod rng;
mod rust;
mod rust_gen;
mod server;

use std::path::PathBuf;

/// Every output format, one picked per case.
pub const FORMATS: &[&str] = &[
    "full",
    "concise",
    "json",
    "json-lines",
    "github",
    "gitlab",
    "sarif",
    "junit",
];

pub struct Options {
    pub binary: PathBuf,
    pub seconds: u64,
    pub seed: u64,
    pub out: PathBuf,
    pub samples: u64,
    pub target: String,
}

/// What a run found.
#[derive(Default)]
pub struct Summary {
    pub cases: u64,
    pub problems: u64,
    /// The most CPU seconds and MiB one case took.
    pub max_cpu: f64,
    pub max_mib: i64,
}

impl Summary {
    pub fn note(&mut self, cpu_seconds: f64, peak_mib: i64) {
        self.max_cpu = self.max_cpu.max(cpu_seconds);
        self.max_mib = self.max_mib.max(peak_mib);
    }

    /// Keeps a case's files and what was wrong.
    pub fn keep(&mut self, options: &Options, problem: &str, files: &[(String, Vec<u8>)]) {
        self.problems += 1;
        let case = options
            .out
            .join(format!("{}-case{}", options.target, self.cases));
        std::fs::create_dir_all(&case).expect("output folder");
        for (name, bytes) in files {
            std::fs::write(case.join(name), bytes).expect("write");
        }
        std::fs::write(case.join("problem.txt"), format!("{problem}\n")).expect("write");
        let mut end = problem.len().min(500);
        while !problem.is_char_boundary(end) {
            end -= 1;
        }
        eprintln!("{}: {}", case.display(), &problem[..end]);
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut options = Options {
        binary: std::env::current_exe()
            .expect("own path")
            .with_file_name("gpulint"),
        seconds: 60,
        seed: 1,
        out: PathBuf::from("fuzz/found"),
        samples: 0,
        target: "python".to_string(),
    };
    while let Some(arg) = args.next() {
        let value = args.next().unwrap_or_default();
        match arg.as_str() {
            "--seconds" => options.seconds = value.parse().expect("--seconds N"),
            "--seed" => options.seed = value.parse().expect("--seed S"),
            "--out" => options.out = PathBuf::from(value),
            "--samples" => options.samples = value.parse().expect("--samples N"),
            "--target" => options.target = value,
            _ => panic!("unknown argument {arg}"),
        }
    }
    assert!(
        options.binary.exists(),
        "build gpulint first: cargo build --release"
    );
    let summary = match options.target.as_str() {
        "python" => python::fuzz(&options),
        "server" => server::fuzz(&options),
        "notebook" => notebook::fuzz(&options),
        "rust" => rust::fuzz(&options),
        other => panic!("unknown target {other}: python, server, notebook or rust"),
    };
    println!(
        "{}: {} cases in {} s (seed {}), {} problems; most CPU one case took {:.2} s, most memory {} MiB",
        options.target,
        summary.cases,
        options.seconds,
        options.seed,
        summary.problems,
        summary.max_cpu,
        summary.max_mib
    );
}
