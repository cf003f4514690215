//! Structured fuzzing of `gpulint check`. Byte-level mutation of the corpus found nothing (191,600
//! runs); what breaks an abstract interpreter is structure: recursion, doubling values, deep
//! chains, factories. This generates programs from the constructs the interpreter models (functions,
//! classes, closures, branches, loops, comprehensions, imports between two modules, fork points) and
//! calls to every library name in the tables, runs the release binary on a single file and on a
//! two-module project in every output format, and keeps any program that crashes it, makes it run
//! longer than 2 s or use more than 200 MiB.
//!
//! `--lang rust` does the same for the Rust frontend (`rust_gen.rs`): loose files and packages
//! with modules by file, generated from its constructs and tables, deeply nested, or with bytes
//! mutated, each checked beside a known hazard whose finding must still be reported. Its time bound
//! is the child's CPU time (user + system), not the wall clock, so a loaded machine does not make
//! findings; a run past 10 s of wall clock is kept too (a hang).
//!
//! `cargo build --release && cargo run --release -p gpulint_fuzz -- [--lang python|rust]
//! [--seconds N] [--seed S] [--out DIR] [--samples N]`

mod rust_gen;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const MAX_SECONDS: f64 = 2.0;
const MAX_MIB: i64 = 200;
const FORMATS: &[&str] = &[
    "full",
    "concise",
    "json",
    "json-lines",
    "github",
    "gitlab",
    "sarif",
    "junit",
];

/// A small deterministic generator (xorshift64*): a seed reproduces a run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// Generates one module's source.
struct Gen<'r> {
    rng: &'r mut Rng,
    library: &'r [&'static str],
    names: Vec<String>,
    functions: Vec<String>,
    classes: Vec<String>,
    out: String,
}

impl Gen<'_> {
    fn line(&mut self, indent: usize, text: &str) {
        self.out.push_str(&"    ".repeat(indent));
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn name(&mut self) -> String {
        if self.names.is_empty() || self.rng.chance(20) {
            let n = format!("v{}", self.names.len());
            self.names.push(n.clone());
            return n;
        }
        self.rng.pick(&self.names).clone()
    }

    fn expr(&mut self, depth: usize) -> String {
        if depth > 3 {
            return self.atom();
        }
        match self.rng.below(14) {
            0 => format!("({}, {})", self.expr(depth + 1), self.expr(depth + 1)),
            1 => format!("[{}, {}]", self.expr(depth + 1), self.expr(depth + 1)),
            2 => format!("({})[{}]", self.expr(depth + 1), self.rng.below(4)),
            3 => format!(
                "({}).{}",
                self.expr(depth + 1),
                self.rng.pick(&[
                    "cuda()",
                    "to('cuda:1')",
                    "device",
                    "cpu()",
                    "x",
                    "start()",
                    "map(f0, [1])"
                ])
            ),
            4 => self.call(depth),
            5 => format!("(lambda a: {})", self.expr(depth + 1)),
            6 => format!(
                "[{} for a in {}]",
                self.expr(depth + 1),
                self.expr(depth + 1)
            ),
            7 => format!(
                "({} if {} else {})",
                self.expr(depth + 1),
                self.atom(),
                self.expr(depth + 1)
            ),
            8 => format!("({} + {})", self.expr(depth + 1), self.expr(depth + 1)),
            9 => format!("{{'k': {}, 'num_workers': 2}}", self.expr(depth + 1)),
            10 => format!("f'cuda:{{{}}}'", self.atom()),
            11 if !self.classes.is_empty() => format!("{}()", self.rng.pick(&self.classes).clone()),
            _ => self.atom(),
        }
    }

    fn atom(&mut self) -> String {
        match self.rng.below(8) {
            0 => self.rng.below(3).to_string(),
            1 => self
                .rng
                .pick(&[
                    "'cuda'", "'cuda:0'", "'cpu'", "'spawn'", "'fork'", "'nccl'", "None",
                ])
                .to_string(),
            2 => "os.environ['LOCAL_RANK']".to_string(),
            3 if !self.functions.is_empty() => self.rng.pick(&self.functions).clone(),
            _ => self.name(),
        }
    }

    /// A call to a library name from the tables, or to one of the module's own functions.
    fn call(&mut self, depth: usize) -> String {
        let callee = if !self.functions.is_empty() && self.rng.chance(40) {
            self.rng.pick(&self.functions).clone()
        } else {
            let name = *self.rng.pick(self.library);
            name.strip_prefix("builtins.").unwrap_or(name).to_string()
        };
        let mut args: Vec<String> = (0..self.rng.below(3))
            .map(|_| self.expr(depth + 1))
            .collect();
        if self.rng.chance(30) {
            let kw = *self.rng.pick(&[
                "device",
                "num_workers",
                "target",
                "map_location",
                "device_map",
                "backend",
                "num_proc",
                "mp_context",
                "collate_fn",
            ]);
            args.push(format!("{kw}={}", self.expr(depth + 1)));
        }
        format!("{callee}({})", args.join(", "))
    }

    /// One to `most` statements.
    fn some(&mut self, indent: usize, most: usize, depth: usize) {
        let n = 1 + self.rng.below(most);
        self.block(indent, n, depth);
    }

    fn block(&mut self, indent: usize, statements: usize, depth: usize) {
        for _ in 0..statements.max(1) {
            self.statement(indent, depth);
        }
    }

    fn statement(&mut self, indent: usize, depth: usize) {
        let nested = depth < 4;
        match self.rng.below(16) {
            0..=2 => {
                let (target, value) = (self.name(), self.expr(0));
                self.line(indent, &format!("{target} = {value}"));
            }
            3..=4 => {
                let call = self.call(0);
                self.line(indent, &call);
            }
            5 if nested => {
                let test = self.expr(1);
                self.line(indent, &format!("if {test}:"));
                self.some(indent + 1, 3, depth + 1);
                for _ in 0..self.rng.below(3) {
                    let test = self.expr(1);
                    self.line(indent, &format!("elif {test}:"));
                    self.block(indent + 1, 1, depth + 1);
                }
                if self.rng.chance(50) {
                    self.line(indent, "else:");
                    self.block(indent + 1, 1, depth + 1);
                }
            }
            6 if nested => {
                let (target, iter) = (self.name(), self.expr(1));
                self.line(indent, &format!("for {target} in {iter}:"));
                self.some(indent + 1, 3, depth + 1);
            }
            7 if nested => {
                let name = format!("f{}", self.functions.len());
                self.functions.push(name.clone());
                self.line(indent, &format!("def {name}(a, b=None, *args, **kwargs):"));
                if self.rng.chance(30) {
                    self.line(indent + 1, "global v0");
                }
                self.some(indent + 1, 4, depth + 1);
                let value = self.expr(1);
                self.line(indent + 1, &format!("return {value}"));
            }
            8 if nested && indent == 0 => {
                let name = format!("C{}", self.classes.len());
                let base = *self.rng.pick(&[
                    "object",
                    "mp.Process",
                    "torch.utils.data.Dataset",
                    "torch.nn.Module",
                ]);
                self.line(indent, &format!("class {name}({base}):"));
                let value = self.expr(1);
                self.line(indent + 1, &format!("attr = {value}"));
                self.line(indent + 1, "def __init__(self, a=None):");
                let value = self.expr(1);
                self.line(indent + 2, &format!("self.x = {value}"));
                for method in ["__getitem__", "run", "forward"] {
                    if self.rng.chance(50) {
                        self.line(indent + 1, &format!("def {method}(self, i=0):"));
                        self.some(indent + 2, 2, depth + 2);
                        self.line(indent + 2, "return self.x");
                    }
                }
                self.classes.push(name);
            }
            9 if nested => {
                self.line(indent, "try:");
                self.block(indent + 1, 1, depth + 1);
                self.line(indent, "except Exception:");
                self.block(indent + 1, 1, depth + 1);
            }
            10 if nested => {
                let value = self.expr(1);
                self.line(indent, &format!("with {value} as w:"));
                self.block(indent + 1, 1, depth + 1);
            }
            11 => {
                let (list, value) = (self.name(), self.expr(1));
                self.line(indent, &format!("{list} = [{value}]"));
                let op = *self.rng.pick(&["append", "extend"]);
                for _ in 0..self.rng.below(6) {
                    self.line(indent, &format!("{list}.{op}({list})"));
                }
            }
            12 if nested => {
                let test = self.expr(1);
                self.line(indent, &format!("while {test}:"));
                self.block(indent + 1, 1, depth + 1);
                self.line(indent + 1, "break");
            }
            13 => {
                let (key, value) = (
                    *self.rng.pick(&[
                        "CUDA_VISIBLE_DEVICES",
                        "LOCAL_RANK",
                        "PYTORCH_NVML_BASED_CUDA_CHECK",
                    ]),
                    self.expr(1),
                );
                self.line(indent, &format!("os.environ['{key}'] = str({value})"));
            }
            14 if indent == 0 && nested => {
                self.line(indent, "if __name__ == '__main__':");
                self.some(indent + 1, 3, depth + 1);
            }
            _ => {
                let name = self.name();
                self.line(indent, &format!("{name} = ({name}, {name})"));
            }
        }
    }
}

fn program(rng: &mut Rng, library: &[&'static str], other: Option<&str>) -> String {
    let mut gen = Gen {
        rng,
        library,
        names: Vec::new(),
        functions: Vec::new(),
        classes: Vec::new(),
        out: String::from("import os\nimport torch\nimport torch.distributed as dist\nimport multiprocessing as mp\n"),
    };
    if let Some(other) = other {
        gen.line(0, &format!("import {other}"));
        gen.line(0, &format!("from {other} import *"));
    }
    let statements = 3 + gen.rng.below(25);
    gen.block(0, statements, 0);
    gen.out
}

struct Outcome {
    code: Option<i32>,
    signal: Option<i32>,
    seconds: f64,
    /// The child's own CPU time, user and system.
    cpu_seconds: f64,
    peak_mib: i64,
    stdout: String,
    stderr: String,
}

// The child is reaped by `wait4`, which also gives its resource usage.
#[allow(clippy::zombie_processes)]
fn check(binary: &Path, dir: &Path, format: &str, target: &str) -> Outcome {
    let err_path = dir.join("stderr.txt");
    let out_path = dir.join("stdout.txt");
    let started = Instant::now();
    let child = Command::new(binary)
        .args(["check", "--output-format", format, target])
        .current_dir(dir)
        .stdout(std::fs::File::create(&out_path).expect("stdout file"))
        .stderr(std::fs::File::create(&err_path).expect("stderr file"))
        .spawn()
        .expect("gpulint runs");
    let pid = child.id() as libc::pid_t;
    // A watchdog kills a run that hangs (well past the bound, so the kill is not the finding).
    let watchdog = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(20));
        unsafe { libc::kill(pid, libc::SIGKILL) };
    });
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    drop(watchdog);
    let time = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Outcome {
        code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        signal: libc::WIFSIGNALED(status).then(|| libc::WTERMSIG(status)),
        seconds: started.elapsed().as_secs_f64(),
        cpu_seconds: time(usage.ru_utime) + time(usage.ru_stime),
        peak_mib: usage.ru_maxrss / 1024,
        stdout: std::fs::read_to_string(&out_path).unwrap_or_default(),
        stderr: std::fs::read_to_string(&err_path).unwrap_or_default(),
    }
}

/// What went wrong in a run, if anything.
fn problem(outcome: &Outcome, time: f64) -> Option<String> {
    if outcome.signal.is_some() {
        Some(format!("killed by signal {:?}", outcome.signal))
    } else if !matches!(outcome.code, Some(0 | 1)) || outcome.stderr.contains("internal error") {
        Some(format!(
            "exit {:?}: {}",
            outcome.code,
            outcome.stderr.trim()
        ))
    } else if time > MAX_SECONDS {
        Some(format!("took {time:.2} s"))
    } else if outcome.peak_mib > MAX_MIB {
        Some(format!("used {} MiB", outcome.peak_mib))
    } else {
        None
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut seconds, mut seed, mut out) = (60u64, 1u64, PathBuf::from("fuzz/found"));
    let mut samples = 0u64;
    let mut rust = false;
    while let Some(arg) = args.next() {
        let value = args.next().unwrap_or_default();
        match arg.as_str() {
            "--lang" => rust = value == "rust",
            "--seconds" => seconds = value.parse().expect("--seconds N"),
            "--seed" => seed = value.parse().expect("--seed S"),
            "--out" => out = PathBuf::from(value),
            "--samples" => samples = value.parse().expect("--samples N"),
            _ => panic!("unknown argument {arg}"),
        }
    }
    let binary = std::env::current_exe()
        .expect("own path")
        .with_file_name("gpulint");
    assert!(
        binary.exists(),
        "build gpulint first: cargo build --release"
    );
    let mut library: Vec<&'static str> =
        gpulint_python::libraries::rows().map(|r| r.name).collect();
    library.retain(|n| !n.contains("()"));
    let mut rng = Rng(seed.max(1));
    if rust {
        return rust_mode(&binary, &mut rng, seconds, seed, &out, samples);
    }
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let (mut runs, mut found) = (0u64, 0u64);
    let mut slowest = (0.0f64, 0i64);
    while Instant::now() < deadline {
        let dir = tempfile::tempdir().expect("temp dir");
        let two_modules = rng.chance(50);
        let helper = two_modules.then(|| program(&mut rng, &library, None));
        let main = program(&mut rng, &library, two_modules.then_some("helper"));
        if let Some(helper) = &helper {
            std::fs::write(dir.path().join("helper.py"), helper).expect("write");
        }
        std::fs::write(dir.path().join("main.py"), &main).expect("write");
        let format = *rng.pick(FORMATS);
        let outcome = check(&binary, dir.path(), format, ".");
        runs += 1;
        slowest = (
            slowest.0.max(outcome.seconds),
            slowest.1.max(outcome.peak_mib),
        );
        // `--samples N` keeps the first N programs whatever happened, to read what is generated.
        let problem = if runs <= samples {
            Some("sample".to_string())
        } else {
            problem(&outcome, outcome.seconds)
        };
        if let Some(problem) = problem {
            found += 1;
            let case = out.join(format!("case{runs}"));
            std::fs::create_dir_all(&case).expect("output folder");
            std::fs::write(case.join("main.py"), &main).expect("write");
            if let Some(helper) = &helper {
                std::fs::write(case.join("helper.py"), helper).expect("write");
            }
            std::fs::write(case.join("problem.txt"), format!("{format}: {problem}\n"))
                .expect("write");
            eprintln!("case{runs} ({format}): {problem}");
        }
    }
    println!(
        "{runs} programs in {seconds} s (seed {seed}), {found} problems; slowest run {:.2} s, largest {} MiB",
        slowest.0, slowest.1
    );
}

/// Formats that put one finding on one line, where the sentinel's finding is looked for.
const LINE_FORMATS: &[&str] = &["concise", "github", "json-lines"];

fn rust_mode(binary: &Path, rng: &mut Rng, seconds: u64, seed: u64, out: &Path, samples: u64) {
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let (mut runs, mut found) = (0u64, 0u64);
    let mut slowest = (0.0f64, 0i64);
    while Instant::now() < deadline {
        let dir = tempfile::tempdir().expect("temp dir");
        let case = rust_gen::case(rng);
        write_case(dir.path(), &case.files);
        let format = if rng.chance(80) {
            *rng.pick(LINE_FORMATS)
        } else {
            *rng.pick(FORMATS)
        };
        let outcome = check(binary, dir.path(), format, &case.target);
        runs += 1;
        slowest = (
            slowest.0.max(outcome.cpu_seconds),
            slowest.1.max(outcome.peak_mib),
        );
        let sentinel_kept = !LINE_FORMATS.contains(&format)
            || outcome
                .stdout
                .lines()
                .any(|l| l.contains(rust_gen::SENTINEL.0) && l.contains("GPU101"));
        let problem = if runs <= samples {
            Some("sample".to_string())
        } else if outcome.seconds > 10.0 {
            Some(format!("took {:.2} s of wall clock", outcome.seconds))
        } else if let Some(p) = problem(&outcome, outcome.cpu_seconds) {
            Some(p)
        } else if !sentinel_kept && case.target == "." {
            Some("the sentinel's finding was lost".to_string())
        } else {
            None
        };
        if let Some(problem) = problem {
            found += 1;
            let kept = out.join(format!("rust{runs}"));
            write_case(&kept, &case.files);
            std::fs::write(
                kept.join("problem.txt"),
                format!("check {} ({format}): {problem}\n", case.target),
            )
            .expect("write");
            eprintln!("rust{runs} ({format}): {problem}");
        }
    }
    println!(
        "{runs} Rust cases in {seconds} s (seed {seed}), {found} problems; most CPU {:.2} s, largest {} MiB",
        slowest.0, slowest.1
    );
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
                unsafe { libc::mkfifo(c.as_ptr(), 0o644) };
            }
        }
    }
}
