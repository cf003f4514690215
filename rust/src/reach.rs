//! Which of a crate's functions can reach a source (`Behaviour::is_source`, or a method row that
//! moves to CUDA) when run: an entry point that reaches none reports no effect, so it is not run.
//!
//! Each function's body, and each static's initialiser, is read once for what the interpreter could
//! run from it: the functions and statics its paths resolve to, every function with the name of a
//! method it calls, the arguments of macros the interpreter evaluates, closures' bodies; a path
//! that resolves to a source's row, or a call of a method that moves to CUDA, is a source. A
//! closure or a static's initialiser runs under its caller's `Self`, so there `Self::` paths are
//! resolved under every type of the crate. Then what reaches a source is found backwards over these
//! edges, once each: linear in the size of the code, however the functions call each other.

use rustc_hash::FxHashMap;
use syn::visit::Visit;

use crate::index::{self, Index, Resolved};
use crate::libraries::{self, Macro, Method};

/// Whether each function of `index` (by its id) may reach a source when it runs.
pub fn reaches_source(index: &Index) -> Vec<bool> {
    let fns = index.fns.len();
    let mut by_name: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
    for (i, f) in index.fns.iter().enumerate() {
        by_name.entry(f.name.as_str()).or_default().push(i);
    }
    let mut self_tys: Vec<Option<&str>> = index.fns.iter().map(|f| f.self_ty.as_deref()).collect();
    self_tys.sort_unstable();
    self_tys.dedup();
    let context = Context {
        index,
        by_name: &by_name,
        self_tys: &self_tys,
        fns,
    };
    // Nodes: the functions, then the statics.
    let mut callers: Vec<Vec<usize>> = vec![Vec::new(); fns + index.statics.len()];
    let mut reached = vec![false; fns + index.statics.len()];
    let mut from = |node: usize, edges: Edges| {
        reached[node] = edges.source;
        for to in edges.to {
            callers[to].push(node);
        }
    };
    for (i, f) in index.fns.iter().enumerate() {
        let mut edges = Edges::new(&context, f.scope, f.self_ty.as_deref());
        edges.visit_block(f.body);
        from(i, edges);
    }
    for (i, s) in index.statics.iter().enumerate() {
        let mut edges = Edges::new(&context, s.scope, None);
        edges.any_self = true;
        edges.visit_expr(s.expr());
        from(fns + i, edges);
    }
    let mut queue: Vec<usize> = (0..reached.len()).filter(|n| reached[*n]).collect();
    while let Some(node) = queue.pop() {
        for &caller in &callers[node] {
            if !std::mem::replace(&mut reached[caller], true) {
                queue.push(caller);
            }
        }
    }
    reached.truncate(fns);
    reached
}

struct Context<'i, 'a> {
    index: &'i Index<'a>,
    by_name: &'i FxHashMap<&'i str, Vec<usize>>,
    /// Every `Self` a function of the crate has (`None` for free functions).
    self_tys: &'i [Option<&'i str>],
    fns: usize,
}

/// What running one body may run next, and whether it holds a source.
struct Edges<'c, 'i, 'a> {
    cx: &'c Context<'i, 'a>,
    scope: usize,
    self_ty: Option<&'i str>,
    /// In a closure or a static's initialiser: `Self` is the caller's.
    any_self: bool,
    to: Vec<usize>,
    source: bool,
}

impl<'c, 'i, 'a> Edges<'c, 'i, 'a> {
    fn new(cx: &'c Context<'i, 'a>, scope: usize, self_ty: Option<&'i str>) -> Self {
        Edges {
            cx,
            scope,
            self_ty,
            any_self: false,
            to: Vec::new(),
            source: false,
        }
    }

    fn resolved(&mut self, r: Resolved) {
        match r {
            Resolved::Fn(id) => self.to.push(id),
            Resolved::Static(id) => self.to.push(self.cx.fns + id),
            Resolved::External(path) => {
                if libraries::lookup(&path).is_some_and(|row| row.behaviour.is_source()) {
                    self.source = true;
                }
            }
            Resolved::Local(_) => {}
        }
    }
}

impl<'i> Visit<'i> for Edges<'_, 'i, '_> {
    fn visit_expr_path(&mut self, p: &'i syn::ExprPath) {
        let segs = index::segments(&p.path);
        let index = self.cx.index;
        if self.any_self && segs.first().is_some_and(|s| s == "Self") {
            for ty in self.cx.self_tys {
                self.resolved(index.resolve(self.scope, &segs, *ty));
            }
        } else {
            self.resolved(index.resolve(self.scope, &segs, self.self_ty));
        }
        syn::visit::visit_expr_path(self, p);
    }

    fn visit_expr_method_call(&mut self, m: &'i syn::ExprMethodCall) {
        let name = m.method.to_string();
        if let Some(ids) = self.cx.by_name.get(name.as_str()) {
            self.to.extend(ids.iter().copied());
        }
        let index = self.cx.index;
        let row = libraries::method_row(&name, |c| index.uses_crate(c));
        if row.is_some_and(|r| matches!(r.method, Method::MovesToCuda { .. })) {
            self.source = true;
        }
        syn::visit::visit_expr_method_call(self, m);
    }

    fn visit_macro(&mut self, mac: &'i syn::Macro) {
        let name = mac.path.segments.last().map(|s| s.ident.to_string());
        if name.and_then(|n| libraries::macro_kind(&n)) == Some(Macro::Evaluates) {
            let index = self.cx.index;
            for a in index.macro_args(mac) {
                self.visit_expr(a);
            }
        }
    }

    fn visit_expr_closure(&mut self, c: &'i syn::ExprClosure) {
        let saved = std::mem::replace(&mut self.any_self, true);
        syn::visit::visit_expr_closure(self, c);
        self.any_self = saved;
    }

    /// Items inside a body are not run.
    fn visit_item(&mut self, _: &'i syn::Item) {}
}
