//! Name-level facts of a module that both the loader and the interpreter need: whether it imports
//! a GPU library, which names it reads, and the `TYPE_CHECKING` guard. They sit below both, so the
//! loader (`program`) does not depend on the interpreter (`semantic`).

use std::path::Path;

use rustc_hash::FxHashSet as HashSet;

use crate::model::{Expr, ExprKind, Module, Stmt, StmtKind};

/// Whether the module imports (anywhere in it) a package through which CUDA can enter a program
/// ([`reaches_gpu`]); `asked`: what its text asks of the CPU-first packages ([`asks_for_gpu`]).
pub fn imports_gpu_library(module: &Module, asked: GpuAsked) -> bool {
    fn imports(stmts: &[Stmt], module: &Module, asked: GpuAsked) -> bool {
        stmts.iter().any(|s| match &s.kind {
            StmtKind::Import(names) => names.iter().any(|n| reaches_gpu(&n.name, asked)),
            StmtKind::ImportFrom {
                module: Some(m),
                level: 0,
                ..
            } => reaches_gpu(m, asked),
            StmtKind::Def(f) => imports(&module.function(*f).body, module, asked),
            StmtKind::Class(c) => imports(&module.class(*c).body, module, asked),
            other => other.any_block(|b| imports(b, module, asked)),
        })
    }
    imports(&module.body, module, asked)
}

/// Which of `libraries::CPU_FIRST`'s packages a module's text asks for the GPU (a bit per row),
/// and whether it names `set_start_method`; read once while the text is at hand (a text read from
/// disk is not held).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GpuAsked {
    cpu_first: u32,
    start_method: bool,
}

/// Whether a module whose text asks `asked` and that imports `imports` (`(level, dotted)`) may set
/// a default context's start method: its text names `set_start_method` and it imports, by its
/// absolute name, a package whose `set_start_method` a row describes. Setting the start method
/// where it is fixed already, or running process creation again in spawned children, fails with
/// or without a GPU library (GPU005, GPU004), so such a module is analysed either way. A name in a
/// string or a comment counts too: more modules than call it, never fewer. The package's own
/// modules (which define the function, and import each other relatively, or name themselves in a
/// string: the standard library's `multiprocessing/spawn.py`) are not among them: a module in a
/// folder named like the package (`path`) does not count the package's import.
pub fn sets_start_method(imports: &[(u32, String)], asked: GpuAsked, path: &Path) -> bool {
    let inside = |root: &str| {
        path.parent()
            .is_some_and(|p| p.components().any(|c| c.as_os_str() == root))
    };
    asked.start_method
        && imports.iter().any(|(level, dotted)| {
            let root = crate::libraries::first_name(dotted);
            *level == 0 && crate::libraries::processes::sets_start_method_of(root) && !inside(root)
        })
}

pub fn asks_for_gpu(text: &str) -> GpuAsked {
    let mut bits = 0;
    for (i, cpu_first) in crate::libraries::CPU_FIRST.iter().enumerate().take(32) {
        let found = cpu_first
            .words
            .iter()
            .any(|w| memchr::memmem::find(text.as_bytes(), w.as_bytes()).is_some());
        bits |= u32::from(found) << i;
    }
    GpuAsked {
        cpu_first: bits,
        start_method: memchr::memmem::find(text.as_bytes(), b"set_start_method").is_some(),
    }
}

/// Whether importing `dotted` in a module whose text asks `asked` can bring CUDA in: a GPU
/// package, unless it computes on the CPU unless told otherwise and the text never tells it
/// (`libraries::CPU_FIRST`: numba without `cuda`, spaCy without `gpu`).
pub fn reaches_gpu(dotted: &str, asked: GpuAsked) -> bool {
    let root = crate::libraries::first_name(dotted);
    if !crate::libraries::GPU_PACKAGES.contains(&root) {
        return false;
    }
    match crate::libraries::CPU_FIRST
        .iter()
        .position(|c| c.package == root)
    {
        None => true,
        Some(i) => asked.cpu_first & (1 << i) != 0,
    }
}

/// Whether the module `dotted` (absolute) is, or is inside, a package CUDA can enter through.
pub fn is_gpu_module(dotted: &str) -> bool {
    let root = crate::libraries::first_name(dotted);
    crate::libraries::GPU_PACKAGES.contains(&root)
}

/// `if TYPE_CHECKING:` / `if typing.TYPE_CHECKING:`: a block that never runs.
pub fn is_type_checking(test: &Expr) -> bool {
    match &test.kind {
        ExprKind::Name(n) => &**n == "TYPE_CHECKING",
        ExprKind::Attribute { attr, .. } => &**attr == "TYPE_CHECKING",
        _ => false,
    }
}

/// The names [`referenced_names`] collects. The lowering interns a module's names, so most
/// occurrences repeat a slice already seen: its address and length, checked first, are cheaper to
/// hash than its text, and one address and length are always one text.
#[derive(Default)]
pub(crate) struct Seen<'a> {
    slices: HashSet<(*const u8, usize)>,
    pub(crate) names: HashSet<&'a str>,
}

impl<'a> Seen<'a> {
    pub(crate) fn insert(&mut self, name: &'a str) {
        if self.slices.insert((name.as_ptr(), name.len())) {
            self.names.insert(name);
        }
    }
}

/// Every name and attribute name read in an expression, nested expressions included.
pub(crate) fn expr<'a>(e: &'a Expr, out: &mut Seen<'a>) {
    match &e.kind {
        ExprKind::Name(n) => {
            out.insert(n);
        }
        ExprKind::Attribute { value, attr } => {
            out.insert(attr);
            expr(value, out);
        }
        ExprKind::Call {
            func,
            args,
            keywords,
        } => {
            expr(func, out);
            args.iter().for_each(|a| expr(a, out));
            keywords.iter().for_each(|k| expr(&k.value, out));
        }
        ExprKind::FString { parts: items, .. }
        | ExprKind::Tuple(items)
        | ExprKind::List(items)
        | ExprKind::MatMul(items)
        | ExprKind::Arith(_, items)
        | ExprKind::Other(items) => items.iter().for_each(|a| expr(a, out)),
        ExprKind::IfExp { test, body, orelse } => {
            expr(test, out);
            expr(body, out);
            expr(orelse, out);
        }
        ExprKind::Compare {
            left, comparators, ..
        } => {
            expr(left, out);
            comparators.iter().for_each(|a| expr(a, out));
        }
        ExprKind::BoolOp { values, .. } => values.iter().for_each(|a| expr(a, out)),
        ExprKind::Not(inner) | ExprKind::Starred(inner) => expr(inner, out),
        ExprKind::Subscript { value, index } => {
            expr(value, out);
            expr(index, out);
        }
        ExprKind::Dict(items) => items.iter().for_each(|(k, v)| {
            if let Some(k) = k {
                expr(k, out);
            }
            expr(v, out);
        }),
        ExprKind::Named { target, value } => {
            expr(target, out);
            expr(value, out);
        }
        ExprKind::Comprehension {
            generators,
            elements,
        } => {
            for g in generators {
                expr(&g.iter, out);
                g.conditions.iter().for_each(|a| expr(a, out));
            }
            elements.iter().for_each(|a| expr(a, out));
        }
        ExprKind::Lambda(_)
        | ExprKind::Str(_)
        | ExprKind::Int(_)
        | ExprKind::Bool(_)
        | ExprKind::NoneLiteral => {}
    }
}
/// Every name read in a block of statements.
pub(crate) fn block<'a>(stmts: &'a [Stmt], out: &mut Seen<'a>) {
    for s in stmts {
        s.kind.each_expression(|e| expr(e, out));
        s.kind.each_block(|b| block(b, out));
    }
}

/// Every name read anywhere, and every attribute name: a function named here is called (or passed)
/// by someone in the module, so it is not an entry point of its own.
pub fn referenced_names(module: &Module) -> HashSet<&str> {
    let mut out = Seen::default();
    block(&module.body, &mut out);
    for f in &module.functions {
        block(&f.body, &mut out);
        f.params
            .iter()
            .filter_map(|p| p.default.as_ref())
            .for_each(|d| expr(d, &mut out));
        f.decorators.iter().for_each(|d| expr(d, &mut out));
    }
    for c in &module.classes {
        block(&c.body, &mut out);
        c.bases.iter().for_each(|b| expr(b, &mut out));
    }
    out.names
}

#[cfg(test)]
mod tests {
    use super::{asks_for_gpu, reaches_gpu, sets_start_method};
    use std::path::Path;

    #[test]
    fn a_module_may_set_the_start_method_when_it_names_it_and_imports_its_package() {
        let sets = |imports: &[(u32, &str)], text: &str| {
            let imports: Vec<(u32, String)> =
                imports.iter().map(|(l, d)| (*l, d.to_string())).collect();
            sets_start_method(&imports, asks_for_gpu(text), Path::new("project/train.py"))
        };
        let call = "mp.set_start_method('spawn')\n";
        assert!(sets(&[(0, "multiprocessing")], call));
        assert!(sets(&[(0, "multiprocess")], call));
        assert!(sets(&[(0, "torch.multiprocessing")], call));
        // The package's own modules import each other relatively.
        assert!(!sets(&[(1, "context")], call));
        assert!(!sets(&[(0, "os")], call));
        assert!(!sets(&[(0, "multiprocessing")], "mp.Pool(2)\n"));
        // The package's own module names itself in a string.
        let imports = vec![(0, "multiprocessing.spawn".to_string())];
        let own = Path::new("lib/python3.11/multiprocessing/spawn.py");
        assert!(!sets_start_method(&imports, asks_for_gpu(call), own));
    }

    #[test]
    fn a_cpu_first_package_reaches_the_gpu_only_where_the_module_asks_for_it() {
        let reaches = |dotted: &str, text: &str| reaches_gpu(dotted, asks_for_gpu(text));
        assert!(reaches("torch", "import torch\n"));
        assert!(!reaches(
            "numba",
            "import numba\n@numba.njit\ndef f(x):\n    return x\n"
        ));
        assert!(reaches("numba", "from numba import cuda\n"));
        assert!(reaches("numba", "import numba\nnumba.cuda.to_device(x)\n"));
        assert!(!reaches("spacy", "import spacy\nnlp = spacy.load('en')\n"));
        assert!(reaches("spacy", "import spacy\nspacy.prefer_gpu()\n"));
        assert!(!reaches("multiprocessing", "import multiprocessing\n"));
    }
}
