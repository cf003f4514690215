//! Hostile Rust inputs: each is checked beside a file with a known hazard, in a run of its own. The
//! run must end (exit 1) with a clear GPU999 for the hostile file, or nothing where the input is
//! valid, and the other file's finding still reported. Cost is bounded on the child's own CPU time
//! (never the wall clock), with a margin wide enough for a loaded machine and an unoptimised build.

mod common;

use std::path::Path;

/// A Rust hazard: the child uses the context its parent created before forking (GPU101).
const HAZARD: &str = "use cudarc::driver::CudaContext;

fn main() {
    let ctx = CudaContext::new(0).unwrap();
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        let stream = ctx.default_stream();
        let _ = stream.alloc_zeros::<u8>(16);
    }
}
";
/// The line of the fork in [`HAZARD`], where GPU101 is reported.
const HAZARD_LINE: u64 = 5;

/// CPU seconds any case may take: its unoptimised build runs in well under one.
const MAX_CPU_SECONDS: f64 = 20.0;
const MAX_MIB: i64 = 400;

type Run = common::Measured;

/// Runs `gpulint check --output-format json ARGS` in `dir`.
fn check(dir: &Path, args: &[&str]) -> Run {
    common::check_measured(dir, args)
}

/// What the hostile file must give: a GPU999 whose message holds this, or no GPU999.
enum Expect<'a> {
    Gpu999(&'a str),
    Valid,
}

/// Checks `args` in a folder holding `hazard.rs` and what `make` adds; the file named `hostile`
/// must give `expect`.
fn case(name: &str, make: impl FnOnce(&Path), args: &[&str], hostile: &str, expect: Expect) -> Run {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("hazard.rs"), HAZARD).unwrap();
    make(dir.path());
    let run = check(dir.path(), args);
    eprintln!(
        "{name}: {:.2} s of CPU, {} MiB",
        run.cpu_seconds, run.peak_mib
    );
    assert!(
        run.cpu_seconds < MAX_CPU_SECONDS,
        "{name}: {:.2} s of CPU",
        run.cpu_seconds
    );
    assert!(run.peak_mib < MAX_MIB, "{name}: {} MiB", run.peak_mib);
    assert_eq!(run.code, Some(1), "{name}: exit status");
    assert!(
        run.findings
            .iter()
            .any(|(f, row, code, _)| f == "hazard.rs" && *row == HAZARD_LINE && code == "GPU101"),
        "{name}: the other file's finding was lost: {:?}",
        run.findings
    );
    let own: Vec<_> = run.findings.iter().filter(|(f, ..)| f == hostile).collect();
    match expect {
        Expect::Gpu999(part) => assert!(
            own.iter()
                .any(|(_, _, code, message)| code == "GPU999" && message.contains(part)),
            "{name}: expected a GPU999 saying {part:?}, got {own:?}"
        ),
        Expect::Valid => assert!(
            own.iter().all(|(_, _, code, _)| code != "GPU999"),
            "{name}: valid Rust reported as bad input: {own:?}"
        ),
    }
    run
}

/// `hostile.rs` with `text`, checked with the hazard as `gpulint check .`.
fn file_case(name: &str, text: &str, expect: Expect) -> Run {
    let write = |d: &Path| std::fs::write(d.join("hostile.rs"), text).unwrap();
    case(name, write, &["."], "hostile.rs", expect)
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.to_string_lossy().as_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

/// D9: nesting that overflowed the stack and aborted the run is a GPU999 for its file.
#[test]
fn deep_nesting_is_a_syntax_error_of_its_file() {
    let deep = |open: &str, n: usize, close: &str| {
        format!(
            "use cudarc::driver::CudaContext;\nfn main() {{\n    let x = {}CudaContext::new(0){};\n}}\n",
            open.repeat(n),
            close.repeat(n)
        )
    };
    let cases = [
        ("90,000 nested parentheses", deep("(", 90_000, ")")),
        ("100,000 nested blocks", deep("{", 100_000, "}")),
        (
            "Vec< 50,000 deep",
            format!(
                "use cudarc::driver::CudaContext;\ntype T = {}u8{};\nfn main() {{}}\n",
                "Vec<".repeat(50_000),
                ">".repeat(50_000)
            ),
        ),
        ("100,000 prefix operators", deep("!", 100_000, "")),
        ("50,000 nested closures", deep("|a, b| ", 50_000, "")),
        ("200,000 additions", deep("", 200_000, " + 1")),
    ];
    for (name, text) in cases {
        file_case(
            name,
            &text,
            Expect::Gpu999("Syntax error: nested too deeply"),
        );
    }
}

/// D9: nesting just under the limits is parsed and analysed: its hazard is found.
#[test]
fn nesting_under_the_limits_is_analysed() {
    let n = 900;
    let text = HAZARD.replace(
        "CudaContext::new(0).unwrap()",
        &format!(
            "{}CudaContext::new(0).unwrap(){}",
            "(".repeat(n),
            ")".repeat(n)
        ),
    );
    let run = file_case("900 nested parentheses", &text, Expect::Valid);
    assert!(
        run.findings
            .iter()
            .any(|(f, row, code, _)| f == "hostile.rs" && *row == HAZARD_LINE && code == "GPU101"),
        "{:?}",
        run.findings
    );
}

/// D10: a FIFO, loose on the command line, found walking a folder, reached by `mod x;` or named
/// by a `[[bin]] path`, is a GPU999 for that file; the run does not hang on it.
#[test]
fn a_fifo_is_an_unreadable_file_not_a_hang() {
    let fifo = Expect::Gpu999("Unreadable file: not a regular file (a FIFO)");
    let loose = |d: &Path| mkfifo(&d.join("hostile.rs"));
    case(
        "a loose FIFO",
        loose,
        &["hazard.rs", "hostile.rs"],
        "hostile.rs",
        fifo,
    );
    let fifo = Expect::Gpu999("Unreadable file: not a regular file (a FIFO)");
    case("a FIFO in a folder", loose, &["."], "hostile.rs", fifo);
    let package = |d: &Path, main: &str, manifest: &str| {
        std::fs::create_dir_all(d.join("src")).unwrap();
        std::fs::write(d.join("Cargo.toml"), manifest).unwrap();
        std::fs::write(d.join("src/main.rs"), main).unwrap();
    };
    let by_mod = |d: &Path| {
        package(d, "mod x;\nfn main() {}\n", "[package]\nname = \"p\"\n");
        mkfifo(&d.join("src/x.rs"));
    };
    let fifo = Expect::Gpu999("not a regular file (a FIFO)");
    case(
        "a FIFO reached by mod",
        by_mod,
        &["hazard.rs", "src/main.rs"],
        "x.rs",
        fifo,
    );
    let by_bin = |d: &Path| {
        let manifest =
            "[package]\nname = \"p\"\n\n[[bin]]\nname = \"tool\"\npath = \"src/tool.rs\"\n";
        package(d, "fn main() {}\n", manifest);
        mkfifo(&d.join("src/tool.rs"));
    };
    let fifo = Expect::Gpu999("not a regular file (a FIFO)");
    case(
        "a FIFO named by [[bin]] path",
        by_bin,
        &["hazard.rs", "src/main.rs"],
        "tool.rs",
        fifo,
    );
    let manifest = |d: &Path| {
        std::fs::create_dir_all(d.join("src")).unwrap();
        std::fs::write(d.join("src/main.rs"), "fn main() {}\n").unwrap();
        mkfifo(&d.join("Cargo.toml"));
    };
    case(
        "a FIFO Cargo.toml",
        manifest,
        &["hazard.rs", "src/main.rs"],
        "main.rs",
        Expect::Valid,
    );
}

/// D17: a file that cannot be read is an unreadable file, as the Python side says, not a syntax
/// error.
#[test]
fn an_unreadable_file_is_not_a_syntax_error() {
    use std::os::unix::fs::symlink;
    let broken = |d: &Path| symlink(d.join("gone.rs"), d.join("hostile.rs")).unwrap();
    let expect = Expect::Gpu999("Unreadable file: No such file");
    case("a broken link", broken, &["."], "hostile.rs", expect);
    let loop_ = |d: &Path| {
        symlink(d.join("b.rs"), d.join("hostile.rs")).unwrap();
        symlink(d.join("hostile.rs"), d.join("b.rs")).unwrap();
    };
    let expect = Expect::Gpu999("Unreadable file: ");
    let run = case(
        "a link loop",
        loop_,
        &["hazard.rs", "hostile.rs"],
        "hostile.rs",
        expect,
    );
    assert!(
        run.findings
            .iter()
            .any(|(_, _, _, message)| message.contains("symbolic links")),
        "{:?}",
        run.findings
    );
    let latin1 =
        |d: &Path| std::fs::write(d.join("hostile.rs"), b"fn main() { \"\xff\"; }\n").unwrap();
    let expect = Expect::Gpu999("Unreadable file: the file is not valid UTF-8");
    case("invalid UTF-8", latin1, &["."], "hostile.rs", expect);
    let syntax = Expect::Gpu999("Syntax error: ");
    file_case("a syntax error", "fn main() { let x = ; }\n", syntax);
}

/// D11: nested inline modules and chained calls cost linear time, not cubic or quadratic.
#[test]
fn nested_modules_and_call_chains_are_linear() {
    let n = 980;
    let mods = format!(
        "use cudarc::driver::CudaContext;\n{}pub fn f() {{ let _ = CudaContext::new(0); }}{}\nfn main() {{}}\n",
        "mod m { use super::*; ".repeat(n),
        "}".repeat(n)
    );
    // Before: 990 modules took 5.7 s (release); after, milliseconds.
    let run = file_case("980 nested inline modules", &mods, Expect::Valid);
    assert!(run.cpu_seconds < 5.0, "{:.2} s", run.cpu_seconds);
    let calls = format!(
        "use cudarc::driver::CudaContext;\nfn f() -> fn() {{ CudaContext::new(0); f }}\nfn main() {{ f{}; }}\n",
        "()".repeat(16_000)
    );
    // Before: 8,000 calls took 4.0 s (release): 16,000 would take four times that.
    let run = file_case("16,000 chained calls", &calls, Expect::Valid);
    assert!(run.cpu_seconds < 5.0, "{:.2} s", run.cpu_seconds);
    let methods = format!(
        "use cudarc::driver::CudaContext;\nfn main() {{ let x = CudaContext::new(0){}; }}\n",
        ".clone()".repeat(8_000)
    );
    let run = file_case("8,000 chained methods", &methods, Expect::Valid);
    assert!(run.cpu_seconds < 5.0, "{:.2} s", run.cpu_seconds);
}

/// A file of more blocks than any real one (syn holds about 7 kB a block: 30,000 took over 200 MiB)
/// is a GPU999 for its file; one of 20,000 is parsed and analysed.
#[test]
fn a_file_of_too_many_blocks_is_not_parsed() {
    let blocks = |n: usize| {
        format!(
            "use cudarc::driver::CudaContext;\nfn main() {{\n    let _ = CudaContext::new(0);\n{}}}\n",
            "    if a { b } else { c }\n".repeat(n / 2)
        )
    };
    file_case(
        "30,000 blocks",
        &blocks(30_000),
        Expect::Gpu999("Syntax error: too many blocks"),
    );
    file_case("20,000 blocks", &blocks(20_000), Expect::Valid);
}

/// Generated bindings shaped like cudarc's `cupti/sys` (cudarc 0.17.8, 1.6 MB): constants and an
/// `extern "C"` block under thousands of `#[cfg]`s, a `Lib` struct of function pointers whose
/// `from_library` binds every symbol with a `let`, a `culib()` once-cell and a public wrapper per
/// symbol that calls through it. `n` symbols.
fn generated_bindings(n: usize) -> String {
    let features = (0..12)
        .map(|v| format!("feature = \"cuda-1{v:02}00\""))
        .collect::<Vec<_>>();
    let cfg = |i: usize| {
        let some = &features[i % 12..(i % 12 + 3).min(12)];
        format!("#[cfg(any({}))]\n", some.join(", "))
    };
    let mut out = String::from("#![allow(non_snake_case)]\nuse std::sync::OnceLock;\n");
    for i in 0..n {
        out += &format!("{}pub const CUPTI_VALUE_{i}: u32 = {i};\n", cfg(i));
    }
    out += "extern \"C\" {\n";
    for i in 0..n {
        out += &format!(
            "    {}    pub fn cuptiCall{i}(value: u32, out: *mut u32) -> u32;\n",
            cfg(i)
        );
    }
    out += "}\npub struct Lib {\n    __library: ::libloading::Library,\n";
    for i in 0..n {
        out += &format!(
            "    {}    pub cuptiCall{i}: unsafe extern \"C\" fn(value: u32, out: *mut u32) -> u32,\n",
            cfg(i)
        );
    }
    out += "}\nimpl Lib {\n    pub unsafe fn new(path: &str) -> Result<Self, ::libloading::Error> {\n        \
            let library = ::libloading::Library::new(path)?;\n        Self::from_library(library)\n    }\n    \
            pub unsafe fn from_library(library: ::libloading::Library) -> Result<Self, ::libloading::Error> {\n        \
            let __library = library;\n";
    for i in 0..n {
        out += &format!(
            "        {}        let cuptiCall{i} = __library\n            .get(b\"cuptiCall{i}\\0\")\n            \
             .map(|sym| *sym)\n            .expect(\"Expected symbol in library\");\n",
            cfg(i)
        );
    }
    out += "        Ok(Self {\n            __library,\n";
    for i in 0..n {
        out += &format!("            {}            cuptiCall{i},\n", cfg(i));
    }
    out += "        })\n    }\n}\npub unsafe fn culib() -> &'static Lib {\n    \
            static LIB: OnceLock<Lib> = OnceLock::new();\n    \
            LIB.get_or_init(|| Lib::new(\"libcupti.so\").expect(\"cupti\"))\n}\n";
    for i in 0..n {
        out += &format!(
            "{}pub unsafe fn cuptiCall{i}(value: u32, out: *mut u32) -> u32 {{\n    \
             (culib().cuptiCall{i})(value, out)\n}}\n",
            cfg(i)
        );
    }
    out
}

/// Generated bindings cost linear time: a crate whose `main` uses cudarc and calls one of 2,000
/// wrappers parses the bindings once more and runs only `main` (the wrappers reach no CUDA
/// context and no fork); its hazard is still found.
#[test]
fn generated_bindings_cost_linear_time() {
    let n = 2_000;
    let main = "mod sys;\nuse cudarc::driver::CudaContext;\n\nfn main() {\n    \
                let ctx = CudaContext::new(0).unwrap();\n    let mut out = 0;\n    \
                unsafe { sys::cuptiCall7(1, &mut out) };\n    let pid = unsafe { libc::fork() };\n    \
                if pid == 0 {\n        let _ = ctx.default_stream();\n    }\n}\n";
    let make = |d: &Path| {
        std::fs::create_dir_all(d.join("src")).unwrap();
        std::fs::write(d.join("Cargo.toml"), "[package]\nname = \"p\"\n").unwrap();
        std::fs::write(d.join("src/main.rs"), main).unwrap();
        std::fs::write(d.join("src/sys.rs"), generated_bindings(n)).unwrap();
    };
    let run = case(
        "2,000 generated bindings",
        make,
        &["."],
        "sys.rs",
        Expect::Valid,
    );
    // Before: 12.0 s of CPU (release, a 1.9 MB file), every wrapper an entry point running
    // `from_library`'s 2,000 lets; after, 0.3 s (release) and under 2 s (unoptimised).
    assert!(run.cpu_seconds < 8.0, "{:.2} s", run.cpu_seconds);
    assert!(
        run.findings
            .iter()
            .any(|(f, row, code, _)| f == "main.rs" && *row == 8 && code == "GPU101"),
        "{:?}",
        run.findings
    );
}
