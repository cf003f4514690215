//! gpulint's Rust frontend. It loads crates (`load.rs`: roots, `mod` files, `Cargo.toml`), indexes
//! each crate's items and resolves its paths (`index.rs`), and interprets function bodies in
//! program order (`interp.rs`, `calls.rs`), reporting the same effects the Python frontend reports
//! to every analysis through the `Analysis` trait. Library knowledge is rows (`libraries.rs`).
//!
//! syn keeps spans in a thread-local map: each crate is parsed again, and analysed, on one thread.

mod calls;
mod index;
mod interp;
pub mod libraries;
pub mod load;
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
    let index = index::Index::build(&parsed, krate.renamed.clone());
    let mut out = Vec::new();
    for (i, f) in index.fns.iter().enumerate() {
        let Some(name) = &f.pymodule else { continue };
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

fn parse(
    loaded: &Loaded,
    krate: &Crate,
    id: impl Fn(usize) -> FileId,
) -> Vec<(FileId, Vec<String>, syn::File)> {
    let mut parsed = Vec::new();
    for (file, module) in &krate.modules {
        let f = &loaded.files[*file];
        if f.error.is_some() {
            continue;
        }
        if let Ok(tree) = syn::parse_file(&f.text) {
            parsed.push((id(*file), module.clone(), tree));
        }
    }
    parsed
}

fn run<A: Analysis>(parsed: &[(FileId, Vec<String>, syn::File)], krate: &Crate) -> A::Facts {
    let index = index::Index::build(parsed, krate.renamed.clone());
    let mut interp = interp::Interp::<A>::new(&index);
    let root = parsed.first().map(|(f, ..)| *f);
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
    for i in order {
        let partial = index.is_called(i) && !is_main(i);
        interp.run_entry(i, partial);
    }
    interp.facts
}
