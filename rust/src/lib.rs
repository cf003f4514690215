//! gpulint's Rust frontend. It loads crates (`load.rs`: roots, `mod` files, `Cargo.toml`), indexes
//! each crate's items and resolves its paths (`index.rs`), and interprets function bodies in
//! program order (`interp.rs`, `calls.rs`), reporting the same effects the Python frontend reports
//! to every analysis through the `Analysis` trait. Library knowledge is rows (`libraries.rs`).
//!
//! Cost follows what can matter: a crate's analysis parses only the files whose names connect them
//! to a source (a row that creates a CUDA context or device, or forks: `scan.rs`, on the text), and
//! runs only the entry points that can reach one (`reach.rs`, on the index). What is left out
//! could report nothing, so the findings are those of running everything.
//!
//! syn keeps spans in a thread-local map: each crate is parsed again, and analysed, on one thread.
//!
//! Parsing, dropping and interpreting recurse over the syntax tree. `nesting.rs` refuses a file
//! nested deeper than the limits before syn sees it, and the interpreter cuts deeper expressions
//! (`interp::MAX_NESTED`), so the deepest accepted file fits a stack of 64 MiB even unoptimised;
//! the binary runs the frontend on workers with 256 MiB.

mod calls;
mod index;
mod interp;
pub mod libraries;
pub mod load;
mod nesting;
mod reach;
mod scan;
mod value;

use gpulint_core::analysis::{Analysis, Context, ProcessEnd};
use gpulint_core::effect::{CudaInitSite, Effect};
use gpulint_core::source::FileId;

pub use load::{load, Crate, FileError, Loaded, RustFile, Source};

/// Whether a crate can reach a GPU crate or fork, from its files' text.
pub fn may_matter(loaded: &Loaded, krate: &Crate) -> bool {
    let renamed: Vec<&str> = krate.renamed.keys().map(String::as_str).collect();
    krate
        .modules
        .iter()
        .any(|(f, _)| libraries::may_matter(&loaded.files[*f].text, &renamed))
}

/// Runs every entry point of one crate (`main`, public functions, tests, functions nothing calls)
/// and returns what the analyses found. `id` gives each of the crate's files its `FileId`.
pub fn analyze<A: Analysis>(
    loaded: &Loaded,
    krate: &Crate,
    id: impl Fn(usize) -> FileId,
) -> A::Facts {
    let parsed = parse(loaded, krate, id);
    let facts = run::<A>(&parsed, krate);
    proc_macro2::extra::invalidate_current_thread_spans();
    facts
}

/// The Python extension modules the crate defines (`#[pymodule]` functions) whose initialiser,
/// run when Python imports the module, initialises CUDA: each module's name and where.
pub fn native_modules(
    loaded: &Loaded,
    krate: &Crate,
    id: impl Fn(usize) -> FileId,
) -> Vec<(String, CudaInitSite)> {
    let parsed = parse(loaded, krate, id);
    let index = index::Index::build(&parsed.files, &parsed.modules, krate.renamed.clone());
    let reaches = reach::reaches_source(&index);
    let mut out = Vec::new();
    for (i, f) in index.fns.iter().enumerate() {
        let Some(name) = &f.pymodule else { continue };
        if !reaches[i] {
            continue;
        }
        let mut interp = interp::Interp::<FirstInit>::new(&index);
        interp.run_entry(i, false);
        if let Some(site) = interp.facts {
            out.push((name.clone(), site));
        }
    }
    drop(index);
    drop(parsed);
    proc_macro2::extra::invalidate_current_thread_spans();
    out
}

/// Records where a process first initialised CUDA.
#[derive(Clone, Debug, Default)]
struct FirstInit;

impl Analysis for FirstInit {
    type Facts = Option<CudaInitSite>;

    fn effect(&mut self, effect: &Effect, _: &Context, facts: &mut Self::Facts) {
        if let (Effect::CudaInit { site, .. }, None) = (effect, &facts) {
            *facts = Some(site.clone());
        }
    }

    fn join(&mut self, _: Self) {}

    fn finish(self, _: &ProcessEnd, _: &mut Self::Facts) {}
}

/// A crate's files that the interpreter needs, parsed, with its root and its modules.
struct Parsed {
    /// `(file, module path, syntax tree)`, in the crate's order.
    files: Vec<(FileId, Vec<String>, syn::File)>,
    /// The first of the crate's files that parses (its own `main` is the program's).
    root: Option<FileId>,
    /// The module paths of every file of the crate that parses, needed or not.
    modules: Vec<Vec<String>>,
}

/// Parses the files of `krate` that can reach a source or change how such code resolves
/// (`scan::needed`); the others are only scanned.
fn parse(loaded: &Loaded, krate: &Crate, id: impl Fn(usize) -> FileId) -> Parsed {
    let ok: Vec<&(usize, Vec<String>)> = krate
        .modules
        .iter()
        .filter(|(f, _)| loaded.files[*f].error.is_none())
        .collect();
    let texts: Vec<&str> = ok
        .iter()
        .map(|(f, _)| loaded.files[*f].text.as_str())
        .collect();
    let mut files = Vec::new();
    for i in scan::needed(&texts, &krate.renamed) {
        let (file, module) = ok[i];
        if let Ok(tree) = syn::parse_file(texts[i]) {
            files.push((id(*file), module.clone(), tree));
        }
    }
    Parsed {
        files,
        root: ok.first().map(|(f, _)| id(*f)),
        modules: ok.iter().map(|(_, m)| m.clone()).collect(),
    }
}

fn run<A: Analysis>(parsed: &Parsed, krate: &Crate) -> A::Facts {
    let index = index::Index::build(&parsed.files, &parsed.modules, krate.renamed.clone());
    let reaches = reach::reaches_source(&index);
    let mut interp = interp::Interp::<A>::new(&index);
    let root = parsed.root;
    let is_main = |i: usize| {
        let f = &index.fns[i];
        f.name == "main" && f.self_ty.is_none() && Some(f.file) == root
    };
    let mut order: Vec<usize> = (0..index.fns.len()).filter(|i| is_main(*i)).collect();
    for i in 0..index.fns.len() {
        let f = &index.fns[i];
        let entry = !index.is_called(i) || f.public || f.test;
        if entry && !is_main(i) {
            order.push(i);
        }
    }
    // An entry point that reaches no source reports nothing: it is not run.
    for i in order.into_iter().filter(|i| reaches[*i]) {
        let partial = index.is_called(i) && !is_main(i);
        interp.run_entry(i, partial);
    }
    interp.facts
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// The stack these tests give the frontend: a quarter of what the binary gives each worker
    /// (`src/check.rs`), in an unoptimised build, whose frames are the larger.
    const STACK: usize = 64 << 20;

    fn analyse(text: String) -> Option<load::FileError> {
        let loaded = load(vec![Source::Text(PathBuf::from("deep.rs"), text)]);
        for krate in &loaded.crates {
            analyze::<FirstInit>(&loaded, krate, |f| FileId(f as u32));
            native_modules(&loaded, krate, |f| FileId(f as u32));
        }
        loaded.files[0].error.clone()
    }

    /// Nesting just under the limits, in each way the parser or the interpreter recurses, is
    /// parsed and analysed within a quarter of the binary's stack.
    #[test]
    fn nesting_up_to_the_limits_fits_the_stack() {
        let n = 980;
        let long = 19_900;
        let call = "cudarc::driver::CudaContext::new(0)";
        let body = |e: String| {
            format!("use cudarc::driver::CudaContext;\nfn main() {{\n    let x = {e};\n}}\n")
        };
        let mut cases = vec![
            body(format!("{}{call}{}", "(".repeat(n), ")".repeat(n))),
            body(format!("{}{call}{}", "{".repeat(n), "}".repeat(n))),
            body(format!("{}{call}{}", "[".repeat(n), "]".repeat(n))),
            body(format!("{}{call}", "!".repeat(n))),
            body(format!("{}{call}", "&".repeat(n))),
            body(format!("{}{call}", "|a, b| ".repeat(n / 2))),
            body(format!("{}{call}", "return ".repeat(n))),
            body(format!("{}{call}", "y = ".repeat(n))),
            body(format!("{call}{}", " + 1".repeat(long))),
            body(format!("{call}{}", "()".repeat(long))),
            body(format!("{call}{}", ".clone()".repeat(long / 2))),
            body(format!("{call}{}", " as u8".repeat(long))),
            body(format!(
                "if a {{ {call} }}{}",
                " else if a { 1 }".repeat(long / 4)
            )),
            format!(
                "use cudarc::driver::CudaContext;\ntype T = {}u8{};\nfn main() {{}}\n",
                "Vec<".repeat(n),
                ">".repeat(n)
            ),
            format!(
                "use cudarc::driver::CudaContext;\n{}fn f() {{ {call}; }}{}\nfn main() {{}}\n",
                "mod m { pub use super::*; ".repeat(n),
                "}".repeat(n)
            ),
        ];
        // Deep expressions in functions that call each other at their deepest point: the
        // interpreter's recursion adds up across calls.
        let chain: String = (0..30)
            .map(|i| {
                format!(
                    "fn f{i}() -> u8 {{ {}f{}(){} }}\n",
                    "(".repeat(n),
                    i + 1,
                    ")".repeat(n)
                )
            })
            .collect();
        cases.push(format!("use cudarc::driver::CudaContext;\n{chain}fn f30() -> u8 {{ {call}; 0 }}\nfn main() {{ f0(); }}\n"));
        let worker = std::thread::Builder::new()
            .stack_size(STACK)
            .spawn(move || {
                for case in cases {
                    let head = case.chars().skip(33).take(60).collect::<String>();
                    assert_eq!(nesting::too_deep(&case), None, "{head}");
                    assert_eq!(analyse(case), None, "{head}");
                }
            })
            .expect("a thread");
        worker.join().expect("no case failed");
    }

    /// Past the limits, a file is refused before syn sees it.
    #[test]
    fn nesting_past_the_limits_is_a_syntax_error() {
        let text = format!(
            "fn main() {{ let x = {}1{}; }}\n",
            "(".repeat(90_000),
            ")".repeat(90_000)
        );
        let Some(load::FileError::Syntax { message, at }) = analyse(text) else {
            panic!("not a syntax error");
        };
        assert!(message.contains("nested too deeply"), "{message}");
        // Where the limit is passed, inside the brackets.
        assert!((20..20 + nesting::MAX_NESTING).contains(&at), "{at}");
    }
}
