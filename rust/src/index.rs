//! A crate's items and how its paths resolve: functions and methods by path, statics, each module's
//! `use` declarations, and which functions something calls. Paths of this crate resolve to
//! `crate::...`; anything else to the external path as written after aliases (`Ctx::new` with
//! `use cudarc::driver::CudaContext as Ctx;` is `cudarc::driver::CudaContext::new`).

use gpulint_core::source::{FileId, Span};
use rustc_hash::{FxHashMap, FxHashSet};
use syn::visit::Visit;

use crate::libraries::{self, Behaviour};

mod spans;

use spans::join;
pub use spans::{call_span, span_of, to_span};

/// A function or method of the crate.
pub struct FnDef<'a> {
    pub name: String,
    pub sig: &'a syn::Signature,
    pub body: &'a syn::Block,
    pub file: FileId,
    pub scope: usize,
    /// The path of the type an `impl` block gives it to.
    pub self_ty: Option<String>,
    pub public: bool,
    pub test: bool,
    /// A Python extension module's initialiser (PyO3's `#[pymodule]`): the module's name, which
    /// Python imports it by.
    pub pymodule: Option<String>,
}

/// How a static gets its value.
pub enum Init<'a> {
    Expr(&'a syn::Expr),
    /// Parsed from a macro's tokens (`lazy_static!`).
    Owned(Box<syn::Expr>),
}

pub struct StaticDef<'a> {
    pub name: String,
    /// The declaration (`static NAME`), where findings about it point.
    pub span: Span,
    pub init: Init<'a>,
    pub file: FileId,
    pub scope: usize,
    /// `lazy_static!`: initialised at first use like a lazy cell.
    pub lazy: bool,
    /// `thread_local!`: each thread's own (initialised at first use on that thread).
    pub per_thread: bool,
    /// A `const`: a value, not a process-wide object.
    pub constant: bool,
}

impl StaticDef<'_> {
    pub fn expr(&self) -> &syn::Expr {
        match &self.init {
            Init::Expr(e) => e,
            Init::Owned(e) => e,
        }
    }
}

/// A module's names: where it is, its items, its `use`s. A module knows its parent, not its whole
/// path: copying paths made `n` nested modules cost `n²`.
#[derive(Default)]
struct Scope {
    /// The enclosing module and this one's name in it; `None` for the crate root.
    parent: Option<(usize, String)>,
    /// Modules inside it (inline or in files), by name.
    children: FxHashMap<String, usize>,
    items: FxHashSet<String>,
    /// Alias → the path as written.
    uses: FxHashMap<String, Vec<String>>,
    globs: Vec<Vec<String>>,
}

#[derive(Default)]
pub struct Index<'a> {
    pub fns: Vec<FnDef<'a>>,
    by_path: FxHashMap<String, usize>,
    methods: FxHashMap<String, Vec<usize>>,
    pub statics: Vec<StaticDef<'a>>,
    static_by_path: FxHashMap<String, usize>,
    scopes: Vec<Scope>,
    renamed: FxHashMap<String, String>,
    /// External crates some resolved path names.
    crates_used: FxHashSet<String>,
    called: FxHashSet<usize>,
    /// The arguments of macros that evaluate them (`println!`, `vec!`), parsed once, by the
    /// macro's address in the syntax tree.
    macro_args: FxHashMap<usize, Vec<syn::Expr>>,
    /// Glob prefixes and `use` targets resolved, by scope, which one, and the depth they were
    /// resolved at (the depth limit decides cycles): resolving one goes through the scope's other
    /// globs, so without it a name cost the number of globs to the power of the depth limit. Kept
    /// once every item is collected (before, an answer may still change).
    resolved: std::cell::RefCell<FxHashMap<(usize, Via, usize), String>>,
    settled: bool,
}

/// What a scope resolves on the way to a name: its `i`th glob, or the target of a `use` alias.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Via {
    Glob(usize),
    Use(String),
}

/// What a path names.
#[derive(Clone, Debug, PartialEq)]
pub enum Resolved {
    Fn(usize),
    Static(usize),
    /// Something of this crate that is neither (a type, a module, an enum variant).
    Local(String),
    External(String),
}

impl<'a> Index<'a> {
    /// Indexes the parsed files of one crate: `(file, module path, syntax tree)`, root first.
    /// `modules`: the module path of each of the crate's files that parses, whether it is among
    /// `files` or not (a module is a module even where its file was not needed).
    pub fn build(
        files: &'a [(FileId, Vec<String>, syn::File)],
        modules: &[Vec<String>],
        renamed: FxHashMap<String, String>,
    ) -> Index<'a> {
        let mut index = Index {
            renamed,
            ..Index::default()
        };
        index.scopes.push(Scope::default());
        for module in modules {
            index.module_scope(module);
        }
        for (file, module, tree) in files {
            let scope = index.module_scope(module);
            index.collect(*file, scope, &tree.items);
        }
        index.settled = true;
        for (_, module, tree) in files {
            let scope = index.module_scope(module);
            let mut calls = CallScan {
                index: &index,
                scope,
                found: Vec::new(),
                methods: Vec::new(),
            };
            calls.visit_file(tree);
            let (found, methods) = (calls.found, calls.methods);
            index.called.extend(found);
            for m in methods {
                if let Some(ids) = index.methods.get(&m) {
                    index.called.extend(ids.iter().copied());
                }
            }
        }
        index.note_crates();
        let mut macros = MacroScan(FxHashMap::default());
        for (_, _, tree) in files {
            macros.visit_file(tree);
        }
        index.macro_args = macros.0;
        index
    }

    /// The module `name` inside `parent`, added if new.
    fn child_scope(&mut self, parent: usize, name: &str) -> usize {
        if let Some(&child) = self.scopes[parent].children.get(name) {
            return child;
        }
        let child = self.scopes.len();
        self.scopes.push(Scope {
            parent: Some((parent, name.to_string())),
            ..Scope::default()
        });
        self.scopes[parent].children.insert(name.to_string(), child);
        child
    }

    /// The scope of the module at `module` (from the crate root), added if new.
    fn module_scope(&mut self, module: &[String]) -> usize {
        module
            .iter()
            .fold(0, |scope, name| self.child_scope(scope, name))
    }

    /// `crate` and the names of the modules down to `scope`.
    fn module_path(&self, scope: usize) -> Vec<String> {
        let mut names = Vec::new();
        let mut at = scope;
        while let Some((parent, name)) = &self.scopes[at].parent {
            names.push(name.clone());
            at = *parent;
        }
        names.push("crate".to_string());
        names.reverse();
        names
    }

    fn collect(&mut self, file: FileId, scope: usize, items: &'a [syn::Item]) {
        // Names first: `use` and `impl` resolution needs them.
        for item in items {
            if let Some(name) = item_name(item) {
                self.scopes[scope].items.insert(name);
            }
            if let syn::Item::Use(u) = item {
                flatten_use(&u.tree, Vec::new(), &mut self.scopes[scope]);
            }
        }
        for item in items {
            match item {
                syn::Item::Fn(f) => {
                    let test = f.attrs.iter().any(|a| a.path().is_ident("test"))
                        || f.attrs
                            .iter()
                            .any(|a| a.path().segments.last().is_some_and(|s| s.ident == "test"));
                    self.add_fn(FnDef {
                        name: f.sig.ident.to_string(),
                        sig: &f.sig,
                        body: &f.block,
                        file,
                        scope,
                        self_ty: None,
                        public: matches!(f.vis, syn::Visibility::Public(_)),
                        test,
                        pymodule: pymodule_name(&f.attrs, &f.sig.ident),
                    });
                }
                syn::Item::Impl(imp) => self.collect_impl(file, scope, imp),
                syn::Item::Mod(m) => {
                    if let Some((_, inner)) = &m.content {
                        let child = self.child_scope(scope, &m.ident.to_string());
                        self.collect(file, child, inner);
                    }
                }
                syn::Item::Static(s) => self.add_static(StaticDef {
                    name: s.ident.to_string(),
                    span: join(file, s.static_token.span, s.ident.span()),
                    init: Init::Expr(&s.expr),
                    file,
                    scope,
                    lazy: false,
                    per_thread: false,
                    constant: false,
                }),
                syn::Item::Const(c) => self.add_static(StaticDef {
                    name: c.ident.to_string(),
                    span: join(file, c.const_token.span, c.ident.span()),
                    init: Init::Expr(&c.expr),
                    file,
                    scope,
                    lazy: false,
                    per_thread: false,
                    constant: true,
                }),
                syn::Item::Macro(m) => self.collect_macro(file, scope, m),
                _ => {}
            }
        }
    }

    /// An `impl` block's functions, as methods of its type's path (every function of a trait impl
    /// is public: it is called through the trait).
    fn collect_impl(&mut self, file: FileId, scope: usize, imp: &'a syn::ItemImpl) {
        let ty = match &*imp.self_ty {
            syn::Type::Path(p) => {
                let segs = segments(&p.path);
                Some(self.path_of(scope, &segs))
            }
            _ => None,
        };
        for it in &imp.items {
            if let syn::ImplItem::Fn(f) = it {
                self.add_fn(FnDef {
                    name: f.sig.ident.to_string(),
                    sig: &f.sig,
                    body: &f.block,
                    file,
                    scope,
                    self_ty: ty.clone(),
                    public: matches!(f.vis, syn::Visibility::Public(_)) || imp.trait_.is_some(),
                    test: false,
                    pymodule: None,
                });
            }
        }
    }

    /// A `lazy_static!`-like macro's statics (a macro the library table names as one), or a
    /// `thread_local!`'s.
    fn collect_macro(&mut self, file: FileId, scope: usize, m: &syn::ItemMacro) {
        let segs = segments(&m.mac.path);
        let path = self.path_of(scope, &segs);
        let behaviour = libraries::lookup(&path).map(|r| r.behaviour);
        let per_thread = behaviour == Some(Behaviour::ThreadLocalMacro);
        if per_thread || behaviour == Some(Behaviour::LazyStaticMacro) {
            for (name, span, expr) in lazy_statics(&m.mac.tokens) {
                self.scopes[scope].items.insert(name.clone());
                self.add_static(StaticDef {
                    name,
                    span: to_span(file, span),
                    init: Init::Owned(Box::new(expr)),
                    file,
                    scope,
                    lazy: true,
                    constant: false,
                    per_thread,
                });
            }
        }
    }

    fn add_fn(&mut self, def: FnDef<'a>) {
        let id = self.fns.len();
        let path = match &def.self_ty {
            Some(ty) => format!("{ty}::{}", def.name),
            None => self.item_path(def.scope, &def.name),
        };
        if def.self_ty.is_some() {
            self.methods.entry(def.name.clone()).or_default().push(id);
        }
        self.by_path.entry(path).or_insert(id);
        self.fns.push(def);
    }

    fn add_static(&mut self, def: StaticDef<'a>) {
        let path = self.item_path(def.scope, &def.name);
        self.static_by_path.insert(path, self.statics.len());
        self.statics.push(def);
    }

    fn item_path(&self, scope: usize, name: &str) -> String {
        let mut parts = self.module_path(scope);
        parts.push(name.to_string());
        parts.join("::")
    }

    /// The full path `segments` names in `scope` (see the module docs).
    pub fn path_of(&self, scope: usize, segments: &[String]) -> String {
        self.resolve_path(scope, segments, 0)
    }

    fn resolve_path(&self, scope: usize, segs: &[String], depth: usize) -> String {
        let Some((first, rest)) = segs.split_first() else {
            return String::new();
        };
        let here = |s: usize| self.module_path(s);
        let mut base: Vec<String> = match first.as_str() {
            "crate" => vec!["crate".into()],
            "self" => here(scope),
            "super" => {
                let mut p = here(scope);
                if p.len() > 1 {
                    p.pop();
                }
                p
            }
            name if self.scopes[scope].items.contains(name) => {
                let mut p = here(scope);
                p.push(name.to_string());
                p
            }
            name if depth < 8 && self.scopes[scope].uses.contains_key(name) => {
                let target = &self.scopes[scope].uses[name];
                if target.first().is_some_and(|t| t == name) {
                    // `use lazy_static::lazy_static;`: the first name is the crate's.
                    let mut p = vec![self.external_root(name)];
                    p.extend(target[1..].iter().cloned());
                    p
                } else {
                    // A `use` path may start from another name in scope (2018 edition).
                    let resolved =
                        self.resolve_via(scope, Via::Use(name.to_string()), target, depth + 1);
                    resolved.split("::").map(str::to_string).collect()
                }
            }
            name => match self.glob_import(scope, name, rest, depth) {
                Some(p) => p,
                None => vec![self.external_root(name)],
            },
        };
        // `super::super::x`
        let mut rest = rest;
        while let Some((s, r)) = rest.split_first() {
            if s != "super" {
                break;
            }
            if base.len() > 1 {
                base.pop();
            }
            rest = r;
        }
        base.extend(rest.iter().cloned());
        base.join("::")
    }

    /// `segs` (a glob's prefix or a `use` target, `via`) resolved in `scope` at `depth`, once.
    fn resolve_via(&self, scope: usize, via: Via, segs: &[String], depth: usize) -> String {
        if !self.settled {
            return self.resolve_path(scope, segs, depth);
        }
        let key = (scope, via, depth);
        if let Some(done) = self.resolved.borrow().get(&key) {
            return done.clone();
        }
        let out = self.resolve_path(scope, segs, depth);
        self.resolved.borrow_mut().insert(key, out.clone());
        out
    }

    /// A name a glob import brings in: an item of a module of this crate, or a library item with a
    /// row.
    fn glob_import(
        &self,
        scope: usize,
        name: &str,
        rest: &[String],
        depth: usize,
    ) -> Option<Vec<String>> {
        if depth >= 8 {
            return None;
        }
        for (i, glob) in self.scopes[scope].globs.iter().enumerate() {
            let prefix = self.resolve_via(scope, Via::Glob(i), glob, depth + 1);
            let candidate = format!("{prefix}::{name}");
            let known = if prefix.starts_with("crate") {
                self.by_path.contains_key(&candidate)
                    || self.static_by_path.contains_key(&candidate)
                    || self.is_module(&prefix, name)
            } else {
                let full = std::iter::once(candidate.clone())
                    .chain(rest.iter().cloned())
                    .collect::<Vec<_>>()
                    .join("::");
                libraries::lookup(&full).is_some() || libraries::lookup(&candidate).is_some()
            };
            if known {
                return Some(candidate.split("::").map(str::to_string).collect());
            }
        }
        None
    }

    /// Whether the module at `prefix` (`crate::a::b`) has a module `name`.
    fn is_module(&self, prefix: &str, name: &str) -> bool {
        let mut parts = prefix.split("::");
        if parts.next() != Some("crate") {
            return false;
        }
        let mut scope = 0;
        for part in parts {
            match self.scopes[scope].children.get(part) {
                Some(&child) => scope = child,
                None => return false,
            }
        }
        self.scopes[scope].children.contains_key(name)
    }

    /// The crate an unresolved first segment names: renamed dependencies, `core`/`alloc`, the
    /// prelude.
    fn external_root(&self, name: &str) -> String {
        if let Some(real) = self.renamed.get(name) {
            return real.clone();
        }
        if let Some((_, to)) = libraries::STD_ALIASES.iter().find(|(a, _)| *a == name) {
            return to.to_string();
        }
        if let Some((_, to)) = libraries::PRELUDE.iter().find(|(a, _)| *a == name) {
            return to.to_string();
        }
        name.to_string()
    }

    /// What a path written in `scope` names; `self_ty` stands for `Self`.
    pub fn resolve(&self, scope: usize, segs: &[String], self_ty: Option<&str>) -> Resolved {
        let path = match (segs.first().map(String::as_str), self_ty) {
            (Some("Self"), Some(ty)) => {
                let mut p = ty.to_string();
                for s in &segs[1..] {
                    p.push_str("::");
                    p.push_str(s);
                }
                p
            }
            _ => self.path_of(scope, segs),
        };
        if let Some(&id) = self.by_path.get(&path) {
            return Resolved::Fn(id);
        }
        if let Some(&id) = self.static_by_path.get(&path) {
            return Resolved::Static(id);
        }
        if path.starts_with("crate::") {
            Resolved::Local(path)
        } else {
            Resolved::External(path)
        }
    }

    /// The parsed arguments of a macro that evaluates them; empty for any other.
    pub fn macro_args(&self, mac: &syn::Macro) -> &[syn::Expr] {
        self.macro_args
            .get(&(mac as *const syn::Macro as usize))
            .map_or(&[], Vec::as_slice)
    }

    /// Methods of the crate by name.
    pub fn methods_named(&self, name: &str) -> &[usize] {
        self.methods.get(name).map_or(&[], Vec::as_slice)
    }

    pub fn fn_by_path(&self, path: &str) -> Option<usize> {
        self.by_path.get(path).copied()
    }

    pub fn is_called(&self, id: usize) -> bool {
        self.called.contains(&id)
    }

    /// Whether some `use` or path of the crate names this external crate.
    pub fn uses_crate(&self, name: &str) -> bool {
        self.crates_used.contains(name)
    }

    /// Records the external crates the crate's `use`s name.
    fn note_crates(&mut self) {
        let mut used = FxHashSet::default();
        for scope in 0..self.scopes.len() {
            let targets: Vec<Vec<String>> = self.scopes[scope]
                .uses
                .values()
                .chain(self.scopes[scope].globs.iter())
                .cloned()
                .collect();
            for t in targets {
                let p = self.path_of(scope, &t);
                if let Some(root) = p.split("::").next() {
                    used.insert(root.to_string());
                }
            }
        }
        self.crates_used = used;
    }
}

fn item_name(item: &syn::Item) -> Option<String> {
    Some(match item {
        syn::Item::Fn(f) => f.sig.ident.to_string(),
        syn::Item::Mod(m) => m.ident.to_string(),
        syn::Item::Static(s) => s.ident.to_string(),
        syn::Item::Const(c) => c.ident.to_string(),
        syn::Item::Struct(s) => s.ident.to_string(),
        syn::Item::Enum(e) => e.ident.to_string(),
        syn::Item::Trait(t) => t.ident.to_string(),
        syn::Item::Type(t) => t.ident.to_string(),
        syn::Item::Union(u) => u.ident.to_string(),
        _ => return None,
    })
}

/// Adds the names a `use` tree brings into scope.
fn flatten_use(tree: &syn::UseTree, prefix: Vec<String>, scope: &mut Scope) {
    match tree {
        syn::UseTree::Path(p) => {
            let mut next = prefix;
            next.push(p.ident.to_string());
            flatten_use(&p.tree, next, scope);
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            let mut path = prefix;
            if name == "self" {
                let Some(last) = path.last().cloned() else {
                    return;
                };
                scope.uses.insert(last, path);
            } else {
                path.push(name.clone());
                scope.uses.insert(name, path);
            }
        }
        syn::UseTree::Rename(r) => {
            let mut path = prefix;
            if r.ident != "self" {
                path.push(r.ident.to_string());
            }
            if r.rename != "_" {
                scope.uses.insert(r.rename.to_string(), path);
            }
        }
        syn::UseTree::Glob(_) => scope.globs.push(prefix),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                flatten_use(t, prefix.clone(), scope);
            }
        }
    }
}

pub fn segments(path: &syn::Path) -> Vec<String> {
    path.segments.iter().map(|s| s.ident.to_string()).collect()
}

/// The `static ref NAME: Type = expr;` declarations in a `lazy_static!` body (`static NAME: Type =
/// expr;` in a `thread_local!`'s).
fn lazy_statics(tokens: &proc_macro2::TokenStream) -> Vec<(String, proc_macro2::Span, syn::Expr)> {
    struct Decls(Vec<(String, proc_macro2::Span, syn::Expr)>);
    impl syn::parse::Parse for Decls {
        fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
            let mut out = Vec::new();
            while !input.is_empty() {
                let _attrs = input.call(syn::Attribute::parse_outer)?;
                let _vis: syn::Visibility = input.parse()?;
                let st: syn::Token![static] = input.parse()?;
                let _ref: Option<syn::Token![ref]> = input.parse()?;
                let name: syn::Ident = input.parse()?;
                let _colon: syn::Token![:] = input.parse()?;
                let _ty: syn::Type = input.parse()?;
                let _eq: syn::Token![=] = input.parse()?;
                let expr: syn::Expr = input.parse()?;
                let _semi: syn::Token![;] = input.parse()?;
                let span = st.span.join(name.span()).unwrap_or(st.span);
                out.push((name.to_string(), span, expr));
            }
            Ok(Decls(out))
        }
    }
    syn::parse2::<Decls>(tokens.clone())
        .map(|d| d.0)
        .unwrap_or_default()
}

/// Finds the crate's functions that something calls or names.
struct CallScan<'i, 'a> {
    index: &'i Index<'a>,
    scope: usize,
    found: Vec<usize>,
    methods: Vec<String>,
}

impl<'ast> Visit<'ast> for CallScan<'_, '_> {
    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        let segs = segments(&p.path);
        if let Resolved::Fn(id) = self.index.resolve(self.scope, &segs, None) {
            self.found.push(id);
        } else if let Some(last) = segs.last() {
            // `Self::helper` and `Type::method`: methods named so are called.
            if segs.len() > 1 {
                self.methods.push(last.clone());
            }
        }
        syn::visit::visit_expr_path(self, p);
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        self.methods.push(m.method.to_string());
        syn::visit::visit_expr_method_call(self, m);
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        let saved = self.scope;
        if m.content.is_some() {
            let name = m.ident.to_string();
            self.scope = self.index.scopes[saved]
                .children
                .get(&name)
                .copied()
                .unwrap_or(saved);
        }
        syn::visit::visit_item_mod(self, m);
        self.scope = saved;
    }
}

/// Parses the arguments of the macros that evaluate them.
struct MacroScan(FxHashMap<usize, Vec<syn::Expr>>);

impl<'ast> Visit<'ast> for MacroScan {
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let name = mac.path.segments.last().map(|s| s.ident.to_string());
        if name.and_then(|n| libraries::macro_kind(&n)) == Some(libraries::Macro::Evaluates) {
            let parser = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
            if let Ok(args) = syn::parse::Parser::parse2(parser, mac.tokens.clone()) {
                self.0.insert(
                    mac as *const syn::Macro as usize,
                    args.into_iter().collect(),
                );
            }
        }
    }
}

/// The module name of a `#[pymodule]` function: `#[pyo3(name = "...")]`, else its own name.
fn pymodule_name(attrs: &[syn::Attribute], ident: &syn::Ident) -> Option<String> {
    let is =
        |a: &syn::Attribute, name: &str| a.path().segments.last().is_some_and(|s| s.ident == name);
    let (module, options) = (
        libraries::EXTENSION_MODULE_ATTRIBUTE,
        libraries::EXTENSION_OPTIONS_ATTRIBUTE,
    );
    if !attrs.iter().any(|a| is(a, module)) {
        return None;
    }
    let mut name = ident.to_string();
    for a in attrs.iter().filter(|a| is(a, options) || is(a, module)) {
        // `#[pyo3(name = "fast")]`, or `#[pymodule(name = "fast")]` in recent PyO3.
        let _ = a.parse_nested_meta(|meta| {
            if meta.path.is_ident("name") {
                let value: syn::LitStr = meta.value()?.parse()?;
                name = value.value();
            } else if meta.input.peek(syn::Token![=]) {
                let _: syn::Expr = meta.value()?.parse()?;
            }
            Ok(())
        });
    }
    Some(name)
}
