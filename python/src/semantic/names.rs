//! Name-level helpers: import resolution, the main guard, decorators, and which functions are called.

use super::value::Value;
use super::Interp;
use crate::libraries::{self, Behaviour};
use crate::model::{CmpOp, Expr, ExprKind, FuncId, Module, Stmt, StmtKind};
use crate::source::Span;
use gpulint_core::analysis::Analysis;

use crate::names::{block, expr, Seen};
pub use crate::names::{imports_gpu_library, is_gpu_module, is_type_checking, referenced_names};

/// `if __name__ == "__main__":` (either operand order).
/// The module's `if __name__ == "__main__":` when it is its last statement, without an `else`:
/// everything before it is what an import of the module runs.
pub(super) fn trailing_main_guard(body: &[Stmt]) -> Option<Span> {
    match &body.last()?.kind {
        StmtKind::If { test, orelse, .. } if orelse.is_empty() && is_main_guard(test) => {
            body.last().map(|s| s.span)
        }
        _ => None,
    }
}

pub fn is_main_guard(test: &Expr) -> bool {
    let ExprKind::Compare {
        left,
        ops,
        comparators,
    } = &test.kind
    else {
        return false;
    };
    if ops.as_slice() != [CmpOp::Eq] || comparators.len() != 1 {
        return false;
    }
    let is_name = |e: &Expr| matches!(&e.kind, ExprKind::Name(n) if &**n == "__name__");
    let is_main = |e: &Expr| matches!(&e.kind, ExprKind::Str(s) if &**s == "__main__");
    (is_name(left) && is_main(&comparators[0])) || (is_main(left) && is_name(&comparators[0]))
}

impl<'m, A: Analysis> Interp<'m, A> {
    /// The qualified name a decorator or callee expression resolves to, through imports.
    pub(super) fn qualified(&self, expr: &Expr) -> Option<String> {
        let target = match &expr.kind {
            ExprKind::Call { func, .. } => func,
            _ => expr,
        };
        let dotted = target.dotted()?;
        let (head, rest) = match dotted.split_once('.') {
            Some((h, r)) => (h, Some(r)),
            None => (dotted.as_str(), None),
        };
        match self.global(head) {
            Some(Value::Qualified(q)) => Some(match rest {
                Some(r) => format!("{q}.{r}"),
                None => q.to_string(),
            }),
            _ => None,
        }
    }

    /// Whether the function is a generator made a context manager (`contextlib.contextmanager`).
    pub(super) fn enters_at_yield(&self, id: FuncId) -> bool {
        self.func(id).decorators.iter().any(|d| {
            matches!(
                self.qualified(d).and_then(|q| libraries::lookup(&q)),
                Some((Behaviour::EntersAtYield, _))
            )
        })
    }

    /// Whether the function is memoised (`functools.lru_cache` / `functools.cache`): its result is global.
    pub(super) fn is_cached(&self, id: FuncId) -> bool {
        self.func(id).decorators.iter().any(|d| {
            matches!(
                self.qualified(d).and_then(|q| libraries::lookup(&q)),
                Some((Behaviour::Memoises, _))
            )
        })
    }
}

/// A decorator on the function or its class that runs it in a worker given its own GPUs
/// (`Behaviour::NarrowsVisibility`).
pub(super) fn narrowing_decorator<A: Analysis>(interp: &Interp<A>, id: FuncId) -> Option<Span> {
    let func = interp.func(id);
    let class_decorators = func
        .class
        .map(|c| interp.class(c).decorators.as_slice())
        .unwrap_or(&[]);
    func.decorators
        .iter()
        .chain(class_decorators)
        .find(
            |d| match interp.qualified(d).and_then(|q| libraries::lookup(&q)) {
                Some((Behaviour::NarrowsVisibility { param }, _)) => d.keyword(param).is_some(),
                _ => false,
            },
        )
        .map(|d| d.span)
}

/// The names a function (and the functions and lambdas defined in it) may read from enclosing
/// scopes: every name read in their bodies and defaults. A closure captures only these.
pub(super) fn free_names(module: &Module, id: FuncId) -> Vec<String> {
    let mut out = Seen::default();
    let mut todo = vec![id];
    let mut seen = Vec::new();
    while let Some(f) = todo.pop() {
        if seen.contains(&f) {
            continue;
        }
        seen.push(f);
        let func = module.function(f);
        block(&func.body, &mut out);
        func.params
            .iter()
            .filter_map(|p| p.default.as_ref())
            .for_each(|d| expr(d, &mut out));
        // Functions and lambdas defined inside (their names lie in its body) read through this
        // one's captures.
        let (Some(first), Some(last)) = (func.body.first(), func.body.last()) else {
            continue;
        };
        let (start, end) = (first.span.start, last.span.end);
        todo.extend(
            module
                .functions
                .iter()
                .enumerate()
                .filter(|(_, g)| g.name_span.start >= start && g.name_span.end <= end)
                .map(|(i, _)| FuncId {
                    file: f.file,
                    index: i as u32,
                }),
        );
    }
    out.names.into_iter().map(str::to_string).collect()
}

/// The module globals a function binds (`global x`) or changes in place (`x[k] = v`, `x.a = v`,
/// `x.update(...)`): its own state, such as a cache it fills. Nested functions are their own.
pub(super) fn written_globals(module: &Module, id: FuncId) -> Vec<String> {
    fn target(e: &Expr, out: &mut Vec<String>) {
        match &e.kind {
            ExprKind::Subscript { value, .. } | ExprKind::Attribute { value, .. } => {
                if let ExprKind::Name(n) = &value.kind {
                    out.push(n.to_string());
                }
            }
            ExprKind::Tuple(items) | ExprKind::List(items) => {
                items.iter().for_each(|i| target(i, out))
            }
            ExprKind::Starred(inner) => target(inner, out),
            _ => {}
        }
    }
    fn calls(e: &Expr, out: &mut Vec<String>) {
        match &e.kind {
            ExprKind::Call {
                func,
                args,
                keywords,
            } => {
                if let ExprKind::Attribute { value, attr } = &func.kind {
                    if let ExprKind::Name(n) = &value.kind {
                        if libraries::python::CONTAINER_MUTATORS.contains(&&**attr) {
                            out.push(n.to_string());
                        }
                    }
                }
                calls(func, out);
                args.iter().for_each(|a| calls(a, out));
                keywords.iter().for_each(|k| calls(&k.value, out));
            }
            ExprKind::Attribute { value, .. } | ExprKind::Subscript { value, .. } => {
                calls(value, out)
            }
            ExprKind::Tuple(items)
            | ExprKind::List(items)
            | ExprKind::MatMul(items)
            | ExprKind::Modulo(items)
            | ExprKind::Other(items)
            | ExprKind::BoolOp { values: items, .. } => items.iter().for_each(|i| calls(i, out)),
            ExprKind::IfExp { test, body, orelse } => {
                calls(test, out);
                calls(body, out);
                calls(orelse, out);
            }
            ExprKind::Not(inner) | ExprKind::Starred(inner) => calls(inner, out),
            ExprKind::Named { value, .. } => calls(value, out),
            _ => {}
        }
    }
    names_in(module, id, |s, out| {
        match &s.kind {
            StmtKind::Global(names) => out.extend(names.iter().cloned()),
            StmtKind::Assign { targets, .. } => targets.iter().for_each(|t| target(t, out)),
            StmtKind::AugAssign { target: t, .. } => target(t, out),
            _ => {}
        }
        s.kind.each_expression(|e| calls(e, out));
    })
}

/// The names function `id` calls directly (`f(...)`), each once.
pub(super) fn called_names(module: &Module, id: FuncId) -> Vec<String> {
    names_in(module, id, |s, out| {
        s.kind.each_expression(|e| {
            if let ExprKind::Call { func, .. } = &e.kind {
                if let ExprKind::Name(n) = &func.kind {
                    out.push(n.to_string());
                }
            }
        })
    })
}

/// The names `each` collects from every statement of function `id`, nested blocks included,
/// sorted, each once.
fn names_in(
    module: &Module,
    id: FuncId,
    mut each: impl FnMut(&Stmt, &mut Vec<String>),
) -> Vec<String> {
    fn block(stmts: &[Stmt], out: &mut Vec<String>, each: &mut dyn FnMut(&Stmt, &mut Vec<String>)) {
        for s in stmts {
            each(s, out);
            s.kind.each_block(|b| block(b, out, each));
        }
    }
    let mut out = Vec::new();
    block(&module.function(id).body, &mut out, &mut each);
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lower::parse;

    #[test]
    fn a_function_writes_the_globals_it_declares_or_changes_in_place() {
        let src = "def fill(k):\n    global READY\n    READY = True\n    CACHE[k] = 1\n    SEEN.add(k)\n    OPTS.verbose = True\n    return LIMIT\n";
        let m = parse(src, Default::default()).unwrap().module;
        let id = FuncId {
            file: m.file,
            index: 0,
        };
        assert_eq!(written_globals(&m, id), ["CACHE", "OPTS", "READY", "SEEN"]);
    }

    #[test]
    fn main_guard_is_recognised_in_either_order() {
        for (src, expected) in [
            ("if __name__ == '__main__':\n    pass\n", true),
            ("if '__main__' == __name__:\n    pass\n", true),
            ("if __name__ != '__main__':\n    pass\n", false),
            ("if name == '__main__':\n    pass\n", false),
        ] {
            let m = parse(src, Default::default()).unwrap().module;
            let StmtKind::If { test, .. } = &m.body[0].kind else {
                panic!("not an if")
            };
            assert_eq!(is_main_guard(test), expected, "{src}");
        }
    }
}
