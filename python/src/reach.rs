//! Which functions can reach a hazard: those whose code makes a decisive call (a row that starts a
//! process, sets a start method, creates a process group, reads a rank, loads a checkpoint... see
//! `libraries::decisive`), or names a definition of the program that can reach one.
//!
//! Entry points are most of a run's time (every function of every checked file is run on its own),
//! and most of them can complete no hazard. An entry point runs from where its module's import
//! left the process, with unknown arguments, so what it can do comes from its own code, the
//! functions and classes it names, the module globals it reads, and (for a method) what its
//! class's `__init__` and body put on the receiver. A library call is resolved through the
//! module's imports as the interpreter resolves it; a method of a value of unknown origin, and a
//! definition of the program, are matched by name, which over-approximates: a function named like
//! one that reaches a hazard counts as reaching it, wherever it is.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::libraries::{decisive, first_name};
use crate::model::{Class, Expr, ExprKind, FuncId, Function, Module, Stmt, StmtKind};

/// The names of the module-level definitions (functions, classes, globals) that can reach a
/// hazard, across the modules it was built from: what an attribute (`utils.launch`) or a star
/// import may name.
#[derive(Debug, Default)]
pub struct Reach {
    names: HashSet<Box<str>>,
}

/// A definition, what its code mentions, and whether it makes a decisive call itself.
struct Def<'m> {
    /// The module it is in, by its place in the build.
    module: u32,
    /// Its name; empty for a method or a nested function (called on a receiver whose class the
    /// caller names, or only where it is defined).
    name: &'m str,
    /// Whether another module can name it (a module-level definition).
    exported: bool,
    /// Names it reads that its module defines: they mean that definition.
    local: Vec<&'m str>,
    /// Attribute names, imported names, and names its module does not define (builtins, star
    /// imports): they may mean any module's definition of that name.
    global: Vec<&'m str>,
    decisive: bool,
    /// The function it is, where it is one of the module the answers are for.
    function: Option<u32>,
}

impl Reach {
    /// From every module of the program (a leaf's functions are asked about with
    /// [`Reach::functions`], which adds its own definitions).
    pub fn build<'m>(modules: impl Iterator<Item = &'m Module>) -> Reach {
        let mut defs = Vec::new();
        for (i, module) in modules.enumerate() {
            definitions(module, i as u32, false, &mut defs);
        }
        let marked = close(&defs, &|_| false);
        let names = defs
            .iter()
            .zip(&marked)
            .filter(|(d, m)| **m && d.exported && !d.name.is_empty())
            .map(|(d, _)| Box::from(d.name))
            .collect();
        Reach { names }
    }

    /// For each function of `module`, whether it can reach a hazard: by its own code, or for a
    /// method, by its class's (any method's, and the class body's: what builds the receiver, and
    /// the methods `self` calls).
    pub fn functions(&self, module: &Module) -> Vec<bool> {
        let mut defs = Vec::new();
        definitions(module, 0, true, &mut defs);
        let marked = close(&defs, &|w| self.names.contains(w));
        let classes: HashSet<&str> = defs
            .iter()
            .zip(&marked)
            .filter(|(d, m)| **m && d.function.is_none())
            .map(|(d, _)| d.name)
            .collect();
        let mut out = vec![false; module.functions.len()];
        for (def, marked) in defs.iter().zip(&marked) {
            if let Some(index) = def.function {
                let class = module.functions[index as usize].class;
                out[index as usize] = *marked
                    || class.is_some_and(|c| classes.contains(module.class(c).name.as_str()));
            }
        }
        out
    }
}

/// Whether function `id` can reach a hazard, by [`Reach::functions`]' answers for its module.
pub fn reaches(answers: &[bool], id: FuncId) -> bool {
    answers.get(id.index as usize).copied().unwrap_or(true)
}

/// Which definitions can reach a hazard: the decisive ones, those whose global words hold a
/// `known` name, and those that name one of these, until none is left to add.
fn close(defs: &[Def], known: &dyn Fn(&str) -> bool) -> Vec<bool> {
    let mut by_local: HashMap<(u32, &str), Vec<usize>> = HashMap::default();
    let mut by_global: HashMap<&str, Vec<usize>> = HashMap::default();
    let mut marked = vec![false; defs.len()];
    let mut todo = Vec::new();
    for (i, def) in defs.iter().enumerate() {
        if def.decisive || def.global.iter().any(|w| known(w)) {
            marked[i] = true;
            todo.push(i);
            continue;
        }
        for w in &def.local {
            by_local.entry((def.module, w)).or_default().push(i);
        }
        for w in &def.global {
            by_global.entry(w).or_default().push(i);
        }
    }
    let mut done_local: HashSet<(u32, &str)> = HashSet::default();
    let mut done_global: HashSet<&str> = HashSet::default();
    while let Some(i) = todo.pop() {
        let def = &defs[i];
        if def.name.is_empty() {
            continue;
        }
        let mut woken = Vec::new();
        if done_local.insert((def.module, def.name)) {
            woken.extend(by_local.get(&(def.module, def.name)).into_iter().flatten());
        }
        if def.exported && done_global.insert(def.name) {
            woken.extend(by_global.get(def.name).into_iter().flatten());
        }
        for &j in woken {
            if !marked[j] {
                marked[j] = true;
                todo.push(j);
            }
        }
    }
    marked
}

/// The definitions of `module` (number `index` of the build): its functions (with the functions
/// and lambdas nested in them), its classes (with their methods), and its globals (with what their
/// statements mention). `own`: number the functions, for [`Reach::functions`].
fn definitions<'m>(module: &'m Module, index: u32, own: bool, out: &mut Vec<Def<'m>>) {
    let aliases = aliases(module);
    let mut defined: HashSet<&'m str> = HashSet::default();
    defined_names(&module.body, module, &mut defined);
    let cx = Cx {
        module,
        index,
        aliases: &aliases,
        defined: &defined,
    };
    let mut nested: Vec<Vec<u32>> = vec![Vec::new(); module.functions.len()];
    for (i, function) in module.functions.iter().enumerate() {
        if let Some(parent) = function.parent {
            nested[parent.index as usize].push(i as u32);
        }
    }
    for (i, function) in module.functions.iter().enumerate() {
        let mut words = Words::new(&cx);
        let mut todo = vec![i as u32];
        while let Some(f) = todo.pop() {
            words.function(&module.functions[f as usize]);
            todo.extend(&nested[f as usize]);
        }
        let top = function.class.is_none() && function.parent.is_none();
        out.push(words.def(
            if top { &function.name } else { "" },
            top,
            own.then_some(i as u32),
        ));
    }
    for class in &module.classes {
        let mut words = Words::new(&cx);
        words.class_level(class);
        for (_, id) in &class.methods {
            words.function(module.function(*id));
        }
        out.push(words.def(&class.name, !class.local, None));
    }
    globals(&cx, &module.body, out);
}

/// The names a module's top level binds: its functions, classes, assignments and imports.
fn defined_names<'m>(body: &'m [Stmt], module: &'m Module, out: &mut HashSet<&'m str>) {
    for stmt in body {
        match &stmt.kind {
            StmtKind::Def(id) => {
                out.insert(&module.function(*id).name);
            }
            StmtKind::Class(id) => {
                out.insert(&module.class(*id).name);
            }
            StmtKind::Import(names) => out.extend(
                names
                    .iter()
                    .map(|n| n.asname.as_deref().unwrap_or_else(|| first_name(&n.name))),
            ),
            StmtKind::ImportFrom { names, .. } => {
                out.extend(names.iter().map(|n| n.asname.as_deref().unwrap_or(&n.name)))
            }
            _ => {
                let mut targets = Vec::new();
                stmt_targets(&stmt.kind, &mut targets);
                out.extend(targets);
            }
        }
        stmt.kind.each_block(|b| defined_names(b, module, out));
    }
}

/// The names an assignment, loop or `with` statement binds.
fn stmt_targets<'m>(kind: &'m StmtKind, out: &mut Vec<&'m str>) {
    match kind {
        StmtKind::Assign { targets, .. } => targets.iter().for_each(|t| bound_names(t, out)),
        StmtKind::AugAssign { target, .. } | StmtKind::For { target, .. } => {
            bound_names(target, out)
        }
        StmtKind::With { items, .. } => items
            .iter()
            .filter_map(|i| i.target.as_ref())
            .for_each(|t| bound_names(t, out)),
        _ => {}
    }
}

/// What a module's words are read against.
struct Cx<'m, 'a> {
    module: &'m Module,
    index: u32,
    aliases: &'a Aliases<'m>,
    defined: &'a HashSet<&'m str>,
}

/// A module's top-level bindings (inside `if`, `try`, `with` and loops too): each name an
/// assignment, import or loop binds, with what its statement mentions.
fn globals<'m>(cx: &Cx<'m, '_>, body: &'m [Stmt], out: &mut Vec<Def<'m>>) {
    for stmt in body {
        match &stmt.kind {
            // A library's callable another module imports from this one (relatively, so not
            // through its aliases) is the library's; a program module's name, its definition's.
            StmtKind::ImportFrom {
                module: from,
                names,
                level,
            } => {
                for n in names {
                    let from = from.as_deref().unwrap_or("");
                    let (decisive, global) = if *level == 0 {
                        (
                            decisive::decisive_call(&format!("{from}.{}", n.name)),
                            Vec::new(),
                        )
                    } else {
                        (false, vec![n.name.as_str()])
                    };
                    out.push(Def {
                        module: cx.index,
                        name: n.asname.as_deref().unwrap_or(&n.name),
                        exported: true,
                        local: Vec::new(),
                        global,
                        decisive,
                        function: None,
                    });
                }
            }
            StmtKind::Assign { .. }
            | StmtKind::AugAssign { .. }
            | StmtKind::For { .. }
            | StmtKind::With { .. } => {
                let mut targets = Vec::new();
                stmt_targets(&stmt.kind, &mut targets);
                let mut words = Words::new(cx);
                stmt.kind.each_expression(|e| words.expr(e));
                let def = words.def("", true, None);
                for name in targets {
                    out.push(Def {
                        name,
                        local: def.local.clone(),
                        global: def.global.clone(),
                        ..def
                    });
                }
            }
            _ => {}
        }
        stmt.kind.each_block(|b| globals(cx, b, out));
    }
}

/// The names an assignment target binds.
fn bound_names<'m>(target: &'m Expr, out: &mut Vec<&'m str>) {
    match &target.kind {
        ExprKind::Name(n) => out.push(n),
        ExprKind::Tuple(items) | ExprKind::List(items) => {
            items.iter().for_each(|i| bound_names(i, out))
        }
        ExprKind::Starred(inner) => bound_names(inner, out),
        _ => {}
    }
}

/// The library a module's names stand for: each name an absolute import binds (anywhere in the
/// module), and each module global assigned a library name or the result of a library call
/// (`app = flask.Flask(...)` stands for `flask.Flask()`), by its qualified name.
type Aliases<'m> = HashMap<&'m str, String>;

fn aliases(module: &Module) -> Aliases<'_> {
    fn imports<'m>(body: &'m [Stmt], out: &mut Aliases<'m>) {
        for stmt in body {
            match &stmt.kind {
                StmtKind::Import(names) => {
                    for n in names {
                        match &n.asname {
                            Some(a) => out.insert(a, n.name.clone()),
                            None => {
                                out.insert(first_name(&n.name), first_name(&n.name).to_string())
                            }
                        };
                    }
                }
                StmtKind::ImportFrom {
                    module: Some(from),
                    level: 0,
                    names,
                } => {
                    for n in names.iter().filter(|n| n.name != "*") {
                        let local = n.asname.as_deref().unwrap_or(&n.name);
                        out.insert(local, format!("{from}.{}", n.name));
                    }
                }
                _ => {}
            }
            stmt.kind.each_block(|b| imports(b, out));
        }
    }
    let mut out = Aliases::default();
    imports(&module.body, &mut out);
    for f in &module.functions {
        imports(&f.body, &mut out);
    }
    for stmt in &module.body {
        let StmtKind::Assign { targets, value } = &stmt.kind else {
            continue;
        };
        let [target] = targets.as_slice() else {
            continue;
        };
        let ExprKind::Name(name) = &target.kind else {
            continue;
        };
        let (chain, called) = match &value.kind {
            ExprKind::Call { func, .. } => (func.as_ref(), true),
            _ => (value, false),
        };
        if let Some(mut qualified) = resolve(&out, chain) {
            if called {
                qualified.push_str("()");
            }
            out.insert(name, qualified);
        }
    }
    out
}

/// The qualified name of a `Name`/`Attribute` chain whose first name is a library alias.
fn resolve(aliases: &Aliases, e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Name(n) => aliases.get(&**n).cloned(),
        ExprKind::Attribute { value, attr } => {
            let mut base = resolve(aliases, value)?;
            base.push('.');
            base.push_str(attr);
            Some(base)
        }
        _ => None,
    }
}

/// What a definition's code mentions, and whether it makes a decisive call.
struct Words<'m, 'c> {
    cx: &'c Cx<'m, 'c>,
    /// Names read (before they are sorted into local and global ones).
    names: Vec<&'m str>,
    global: Vec<&'m str>,
    /// Names the function being read binds itself: its locals, which mean no definition.
    bound: HashSet<&'m str>,
    decisive: bool,
}

impl<'m, 'c> Words<'m, 'c> {
    fn new(cx: &'c Cx<'m, 'c>) -> Self {
        Words {
            cx,
            names: Vec::new(),
            global: Vec::new(),
            bound: HashSet::default(),
            decisive: false,
        }
    }

    fn def(mut self, name: &'m str, exported: bool, function: Option<u32>) -> Def<'m> {
        let mut local = Vec::new();
        for n in std::mem::take(&mut self.names) {
            if self.cx.defined.contains(n) {
                local.push(n);
            } else {
                self.global.push(n);
            }
        }
        for words in [&mut local, &mut self.global] {
            words.sort_unstable();
            words.dedup();
        }
        Def {
            module: self.cx.index,
            name,
            exported,
            local,
            global: self.global,
            decisive: self.decisive,
            function,
        }
    }

    /// A class's own code besides its methods: bases, keywords, decorators and body statements.
    fn class_level(&mut self, class: &'m Class) {
        class.bases.iter().for_each(|e| self.expr(e));
        class.decorators.iter().for_each(|e| self.expr(e));
        class.keywords.iter().for_each(|k| self.expr(&k.value));
        self.block(&class.body);
    }

    /// A function's body, decorators and parameter defaults; the names it binds itself are its
    /// locals.
    fn function(&mut self, function: &'m Function) {
        function.decorators.iter().for_each(|e| self.expr(e));
        for p in &function.params {
            if let Some(d) = &p.default {
                self.expr(d);
            }
        }
        let start = self.names.len();
        let outer = std::mem::take(&mut self.bound);
        self.bound
            .extend(function.params.iter().map(|p| p.name.as_str()));
        self.bound.extend(function.vararg.as_deref());
        self.bound.extend(function.kwarg.as_deref());
        self.block(&function.body);
        let bound = std::mem::replace(&mut self.bound, outer);
        let mut i = start;
        while i < self.names.len() {
            if bound.contains(self.names[i]) {
                self.names.swap_remove(i);
            } else {
                i += 1;
            }
        }
    }

    fn block(&mut self, body: &'m [Stmt]) {
        for stmt in body {
            match &stmt.kind {
                // A module imported here runs its top level; the names it binds are locals.
                StmtKind::Import(names) => {
                    for n in names {
                        self.global.extend(n.name.split('.'));
                        self.bound
                            .insert(n.asname.as_deref().unwrap_or_else(|| first_name(&n.name)));
                    }
                }
                StmtKind::ImportFrom {
                    module: from,
                    names,
                    level,
                } => {
                    for n in names {
                        let name = n.asname.as_deref().unwrap_or(&n.name);
                        if *level == 0 {
                            let from = from.as_deref().unwrap_or("");
                            self.decisive |= decisive::decisive_call(&format!("{from}.{}", n.name));
                        } else {
                            self.global.push(&n.name);
                        }
                        self.bound.insert(name);
                    }
                }
                StmtKind::Global(names) => {
                    for n in names {
                        self.bound.remove(n.as_str());
                        self.names.push(n);
                    }
                }
                StmtKind::Def(id) => {
                    self.bound.insert(&self.cx.module.function(*id).name);
                }
                StmtKind::Class(id) => {
                    self.bound.insert(&self.cx.module.class(*id).name);
                }
                kind => {
                    let mut targets = Vec::new();
                    stmt_targets(kind, &mut targets);
                    self.bound.extend(targets);
                    kind.each_expression(|e| self.expr(e));
                }
            }
            if let StmtKind::With { items, .. } = &stmt.kind {
                for t in items.iter().filter_map(|i| i.target.as_ref()) {
                    self.expr(t);
                }
            }
            stmt.kind.each_block(|b| self.block(b));
        }
    }

    /// Every name and attribute name an expression mentions, lambdas' bodies included; a library
    /// chain is looked up as the interpreter looks it up, an attribute as a method of any value,
    /// a name-like string as an environment variable or an attribute `getattr` reads.
    /// A name read: a library's is looked up, not matched with the program's definitions; a
    /// global a library call made (`POOL = mp.Pool(2)`) is also its module's definition.
    fn name(&mut self, n: &'m str) {
        match self.cx.aliases.get(n) {
            Some(q) => match q.strip_suffix("()") {
                Some(callee) => {
                    self.decisive |= decisive::decisive_call(callee);
                    self.names.push(n);
                }
                None => self.decisive |= decisive::decisive_call(q),
            },
            None => self.names.push(n),
        }
    }

    fn expr(&mut self, e: &'m Expr) {
        match &e.kind {
            ExprKind::Name(n) => self.name(n),
            ExprKind::Attribute { value, attr } => {
                self.global.push(attr);
                if !self.decisive {
                    self.decisive = decisive::decisive_members().contains(&**attr)
                        || resolve(self.cx.aliases, e).is_some_and(|q| decisive::decisive_call(&q));
                }
                self.expr(value);
            }
            ExprKind::Str(s) => {
                if !self.decisive && s.len() <= 64 {
                    self.decisive = decisive::decisive_strings().contains(&**s);
                }
            }
            ExprKind::Lambda(id) => {
                if id.file == self.cx.module.file {
                    self.function(self.cx.module.function(*id));
                }
            }
            ExprKind::Call {
                func,
                args,
                keywords,
            } => {
                self.expr(func);
                args.iter().for_each(|a| self.expr(a));
                for k in keywords {
                    if !self.decisive {
                        self.decisive = k
                            .name
                            .as_deref()
                            .is_some_and(|n| decisive::decisive_keywords().contains(n));
                    }
                    self.expr(&k.value);
                }
            }
            ExprKind::FString { parts: items, .. }
            | ExprKind::Tuple(items)
            | ExprKind::List(items)
            | ExprKind::MatMul(items)
            | ExprKind::Arith(_, items)
            | ExprKind::Other(items)
            | ExprKind::BoolOp { values: items, .. } => items.iter().for_each(|a| self.expr(a)),
            ExprKind::IfExp { test, body, orelse } => {
                self.expr(test);
                self.expr(body);
                self.expr(orelse);
            }
            ExprKind::Compare {
                left, comparators, ..
            } => {
                self.expr(left);
                comparators.iter().for_each(|a| self.expr(a));
            }
            ExprKind::Not(inner) | ExprKind::Starred(inner) => self.expr(inner),
            ExprKind::Subscript { value, index } => {
                self.expr(value);
                self.expr(index);
            }
            ExprKind::Named { target, value } => {
                let mut targets = Vec::new();
                bound_names(target, &mut targets);
                self.bound.extend(targets);
                self.expr(value);
            }
            ExprKind::Dict(items) => {
                for (k, v) in items {
                    if let Some(k) = k {
                        self.expr(k);
                    }
                    self.expr(v);
                }
            }
            ExprKind::Comprehension {
                generators,
                elements,
            } => {
                for g in generators {
                    let mut targets = Vec::new();
                    bound_names(&g.target, &mut targets);
                    self.bound.extend(targets);
                    self.expr(&g.iter);
                    g.conditions.iter().for_each(|a| self.expr(a));
                }
                elements.iter().for_each(|a| self.expr(a));
            }
            ExprKind::Int(_) | ExprKind::Bool(_) | ExprKind::NoneLiteral => {}
        }
    }
}

#[cfg(test)]
mod tests;
