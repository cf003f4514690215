//! Parses Python with ruff's parser and lowers its AST into [`crate::model`]. The only module that
//! names parser types: a parser upgrade touches this file alone.

use ruff_python_ast as ast;
use ruff_python_ast::token::TokenKind;
use ruff_python_ast::visitor::{walk_expr, Visitor};
use ruff_text_size::{Ranged, TextRange};
use rustc_hash::FxHashSet as HashSet;
use std::sync::Arc;
use thin_vec::{thin_vec, ThinVec};

use crate::model::*;
use crate::source::{FileId, Span};

/// A syntax error: the parser's message and where it is.
#[derive(Debug, Clone)]
pub struct SyntaxError {
    pub message: String,
    pub span: Span,
}

/// CPython's tokenizer refuses brackets nested deeper than this ("too many nested parentheses").
/// ruff's parser recurses once per level instead, touching megabytes of stack for deep inputs: the
/// limit is checked first, by a scan that skips comments and strings.
pub const MAX_NESTING: usize = 200;

/// The bytes [`too_deeply_nested`] stops at; every other byte is skipped in a tight loop, and
/// comments and strings are skipped with `memchr`. The scan reads every parsed file: on
/// transformers' 44 MB it takes 23 ms where a `match` on each byte took 60.
const SPECIAL: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    let special = b"#'\"([{)]}";
    while i < special.len() {
        table[special[i] as usize] = true;
        i += 1;
    }
    table
};

/// The offset of the first bracket nested deeper than [`MAX_NESTING`], if any.
fn too_deeply_nested(source: &str) -> Option<u32> {
    let bytes = source.as_bytes();
    let (mut depth, mut i) = (0usize, 0usize);
    while i < bytes.len() {
        if !SPECIAL[bytes[i] as usize] {
            i += 1;
            continue;
        }
        match bytes[i] {
            b'#' => {
                i = memchr::memchr2(b'\n', b'\r', &bytes[i..]).map_or(bytes.len(), |at| i + at);
            }
            quote @ (b'\'' | b'"') => {
                let triple = bytes.get(i + 1) == Some(&quote) && bytes.get(i + 2) == Some(&quote);
                i += if triple { 3 } else { 1 };
                // To the next byte that can end the string: a backslash, the quote, or (for a
                // single-quoted string) a line break.
                let stop = |rest: &[u8]| {
                    if triple {
                        memchr::memchr2(b'\\', quote, rest)
                    } else {
                        memchr::memchr3(b'\\', quote, b'\n', rest)
                    }
                };
                while i < bytes.len() {
                    let Some(at) = stop(&bytes[i..]) else {
                        i = bytes.len();
                        break;
                    };
                    i += at;
                    match bytes[i] {
                        b'\\' => i += 1,
                        b'\n' => break,
                        _ if !triple
                            || bytes.get(i + 1) == Some(&quote)
                                && bytes.get(i + 2) == Some(&quote) =>
                        {
                            i += if triple { 2 } else { 0 };
                            break;
                        }
                        _ => {}
                    }
                    i += 1;
                }
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Some(i as u32);
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
}

/// The parser's tree of `source`, or its first error (the nesting Python refuses first).
fn parse_only(
    source: &str,
    file: FileId,
) -> Result<ruff_python_parser::Parsed<ast::ModModule>, SyntaxError> {
    if let Some(at) = too_deeply_nested(source) {
        return Err(SyntaxError {
            message: format!("too many nested brackets (Python allows {MAX_NESTING})"),
            span: Span::new(file, at, at + 1),
        });
    }
    ruff_python_parser::parse_module(source).map_err(|e| SyntaxError {
        message: e.error.to_string(),
        span: Span::new(file, e.location.start().to_u32(), e.location.end().to_u32()),
    })
}

/// The syntax error in `source`, if it has one: the parse of a file that is checked for syntax
/// only (it can reach no GPU library), its tree dropped unlowered.
pub fn syntax_error(source: &str, file: FileId) -> Option<SyntaxError> {
    parse_only(source, file).err()
}

/// A lowered module with the spans of its comments.
pub struct Lowered {
    pub module: Module,
    pub comments: Vec<Span>,
}

/// String literals longer than this are kept as an unknown value, not as text.
const MAX_STRING: usize = 256;

/// Deeper expression nesting than this is reduced to `Other`, keeping the lowering's recursion bounded.
const MAX_DEPTH: u32 = 200;

pub fn parse(source: &str, file: FileId) -> Result<Lowered, SyntaxError> {
    let span = |range: TextRange| Span::new(file, range.start().to_u32(), range.end().to_u32());
    let parsed = parse_only(source, file)?;
    let comments = parsed
        .tokens()
        .iter()
        .filter(|t| t.kind() == TokenKind::Comment)
        .map(|t| span(t.range()))
        .collect();
    let mut lower = Lower {
        module: Module {
            file,
            ..Module::default()
        },
        names: HashSet::default(),
        class: None,
        function: None,
        depth: 0,
        yields: 0,
    };
    let body = lower.suite(&parsed.syntax().body);
    lower.module.body = body;
    lower.module.docstring = docstring(&parsed.syntax().body);
    Ok(Lowered {
        module: lower.module,
        comments,
    })
}

/// The module's docstring (its usage lines say how it is launched), up to `MAX_DOCSTRING` bytes:
/// kept apart from the body, whose strings are cut at `MAX_STRING`.
fn docstring(body: &[ast::Stmt]) -> Option<Arc<str>> {
    let ast::Stmt::Expr(e) = body.first()? else {
        return None;
    };
    let ast::Expr::StringLiteral(s) = &*e.value else {
        return None;
    };
    let text = s.value.to_str();
    let end = text.floor_char_boundary(MAX_DOCSTRING);
    Some(text[..end].into())
}

const MAX_DOCSTRING: usize = 16 * 1024;

struct Lower {
    module: Module,
    /// Each name and attribute once: a module reads the same few names (`self`, `torch`) many times.
    names: HashSet<Arc<str>>,
    class: Option<ClassId>,
    function: Option<FuncId>,
    depth: u32,
    /// The `yield`s met in the function being lowered (nested functions count their own).
    yields: u32,
}

impl Lower {
    fn name(&mut self, name: &str) -> Arc<str> {
        if let Some(known) = self.names.get(name) {
            return Arc::clone(known);
        }
        let name: Arc<str> = name.into();
        self.names.insert(Arc::clone(&name));
        name
    }

    fn span(&self, range: TextRange) -> Span {
        Span::new(
            self.module.file,
            range.start().to_u32(),
            range.end().to_u32(),
        )
    }

    fn suite(&mut self, stmts: &[ast::Stmt]) -> ThinVec<Stmt> {
        stmts.iter().map(|s| self.stmt(s)).collect()
    }

    fn stmt(&mut self, stmt: &ast::Stmt) -> Stmt {
        use ast::Stmt as S;
        let kind = match stmt {
            S::FunctionDef(f) => StmtKind::Def(self.function_def(f)),
            S::ClassDef(c) => StmtKind::Class(self.class_def(c)),
            S::Return(r) => StmtKind::Return(r.value.as_deref().map(|e| self.expr(e))),
            S::Delete(d) => StmtKind::Other(self.exprs(&d.targets)),
            S::TypeAlias(_) | S::Pass(_) | S::IpyEscapeCommand(_) | S::Nonlocal(_) => {
                StmtKind::Other(ThinVec::new())
            }
            S::Assign(a) => StmtKind::Assign {
                targets: self.exprs(&a.targets),
                value: self.expr(&a.value),
            },
            S::AugAssign(a) => StmtKind::AugAssign {
                target: self.boxed(&a.target),
                value: self.boxed(&a.value),
            },
            S::AnnAssign(a) => match &a.value {
                Some(value) => StmtKind::Assign {
                    targets: thin_vec![self.expr(&a.target)],
                    value: self.expr(value),
                },
                None => StmtKind::Other(ThinVec::new()),
            },
            S::For(f) => StmtKind::For {
                target: self.boxed(&f.target),
                iter: self.boxed(&f.iter),
                body: self.suite(&f.body),
                orelse: self.suite(&f.orelse),
            },
            S::While(w) => StmtKind::While {
                test: self.expr(&w.test),
                body: self.suite(&w.body),
                orelse: self.suite(&w.orelse),
            },
            S::If(i) => return self.if_chain(i.range, &i.test, &i.body, &i.elif_else_clauses),
            S::With(w) => StmtKind::With {
                items: w
                    .items
                    .iter()
                    .map(|item| WithItem {
                        context: self.expr(&item.context_expr),
                        target: item.optional_vars.as_deref().map(|e| self.expr(e)),
                    })
                    .collect(),
                body: self.suite(&w.body),
            },
            S::Match(m) => StmtKind::Match {
                subject: self.expr(&m.subject),
                cases: m.cases.iter().map(|c| self.suite(&c.body)).collect(),
            },
            S::Raise(r) => StmtKind::Raise(r.exc.as_deref().map(|e| self.expr(e))),
            S::Try(t) => StmtKind::Try {
                body: self.suite(&t.body),
                handlers: t
                    .handlers
                    .iter()
                    .map(|h| match h {
                        ast::ExceptHandler::ExceptHandler(h) => self.suite(&h.body),
                    })
                    .collect(),
                orelse: self.suite(&t.orelse),
                finally: self.suite(&t.finalbody),
            },
            S::Assert(a) => StmtKind::Other(thin_vec![self.expr(&a.test)]),
            S::Import(i) => StmtKind::Import(
                i.names
                    .iter()
                    .map(|a| ImportName {
                        name: a.name.to_string(),
                        asname: a.asname.as_ref().map(|n| n.to_string()),
                    })
                    .collect(),
            ),
            S::ImportFrom(i) => StmtKind::ImportFrom {
                module: i.module.as_ref().map(|m| m.to_string()),
                level: i.level,
                names: i
                    .names
                    .iter()
                    .map(|a| ImportName {
                        name: a.name.to_string(),
                        asname: a.asname.as_ref().map(|n| n.to_string()),
                    })
                    .collect(),
            },
            S::Global(g) => StmtKind::Global(g.names.iter().map(|n| n.to_string()).collect()),
            S::Expr(e) => StmtKind::Expr(self.expr(&e.value)),
            S::Break(_) => StmtKind::Break,
            S::Continue(_) => StmtKind::Continue,
        };
        Stmt {
            span: self.span(stmt.range()),
            kind,
        }
    }

    fn if_chain(
        &mut self,
        range: TextRange,
        test: &ast::Expr,
        body: &[ast::Stmt],
        clauses: &[ast::ElifElseClause],
    ) -> Stmt {
        let test = self.expr(test);
        let body = self.suite(body);
        let orelse = match clauses.split_first() {
            None => ThinVec::new(),
            Some((first, rest)) => match &first.test {
                Some(elif_test) => {
                    thin_vec![self.if_chain(
                        TextRange::new(first.range.start(), range.end()),
                        elif_test,
                        &first.body,
                        rest,
                    )]
                }
                None => self.suite(&first.body),
            },
        };
        Stmt {
            span: self.span(range),
            kind: StmtKind::If { test, body, orelse },
        }
    }

    fn params(
        &mut self,
        params: Option<&ast::Parameters>,
    ) -> (Vec<Param>, Option<String>, Option<String>) {
        let Some(p) = params else {
            return (Vec::new(), None, None);
        };
        let mut out = Vec::new();
        for (list, keyword_only) in [
            (&p.posonlyargs, false),
            (&p.args, false),
            (&p.kwonlyargs, true),
        ] {
            for param in list.iter() {
                out.push(Param {
                    name: param.parameter.name.to_string(),
                    default: param.default.as_deref().map(|d| self.expr(d)),
                    keyword_only,
                });
            }
        }
        (
            out,
            p.vararg.as_ref().map(|v| v.name.to_string()),
            p.kwarg.as_ref().map(|k| k.name.to_string()),
        )
    }

    fn function_def(&mut self, f: &ast::StmtFunctionDef) -> FuncId {
        let decorators = f
            .decorator_list
            .iter()
            .map(|d| self.expr(&d.expression))
            .collect();
        let (params, vararg, kwarg) = self.params(Some(&f.parameters));
        let id = FuncId {
            file: self.module.file,
            index: self.module.functions.len() as u32,
        };
        self.module.functions.push(Function {
            name: f.name.to_string(),
            name_span: self.span(f.name.range),
            params,
            vararg,
            kwarg,
            decorators,
            body: ThinVec::new(),
            class: self.class,
            parent: self.function,
            names: Default::default(),
            yield_at: None,
        });
        let (outer_class, outer_fn) = (self.class.take(), self.function.replace(id));
        let outer_yields = std::mem::take(&mut self.yields);
        let body = self.suite(&f.body);
        let yield_at = (self.yields == 1).then(|| yield_at(&f.body)).flatten();
        self.yields = outer_yields;
        self.class = outer_class;
        self.function = outer_fn;
        let function = &mut self.module.functions[id.index as usize];
        function.body = body;
        function.yield_at = yield_at;
        id
    }

    fn class_def(&mut self, c: &ast::StmtClassDef) -> ClassId {
        let decorators = c
            .decorator_list
            .iter()
            .map(|d| self.expr(&d.expression))
            .collect();
        let (bases, keywords) = match c.arguments.as_deref() {
            Some(args) => (self.exprs(&args.args), self.keywords(&args.keywords)),
            None => (ThinVec::new(), ThinVec::new()),
        };
        let id = ClassId {
            file: self.module.file,
            index: self.module.classes.len() as u32,
        };
        let local = self.function.is_some()
            || self
                .class
                .is_some_and(|outer| self.module.class(outer).local);
        self.module.classes.push(Class {
            name: c.name.to_string(),
            name_span: self.span(c.name.range),
            bases,
            keywords,
            decorators,
            body: ThinVec::new(),
            methods: Vec::new(),
            local,
        });
        let (outer_class, outer_fn) = (self.class.replace(id), self.function.take());
        let body = self.suite(&c.body);
        self.class = outer_class;
        self.function = outer_fn;
        let methods = body
            .iter()
            .filter_map(|s| match s.kind {
                StmtKind::Def(f) => Some((self.module.function(f).name.clone(), f)),
                _ => None,
            })
            .collect();
        let class = &mut self.module.classes[id.index as usize];
        class.body = body;
        class.methods = methods;
        id
    }

    fn keywords(&mut self, keywords: &[ast::Keyword]) -> ThinVec<Keyword> {
        keywords
            .iter()
            .map(|k| Keyword {
                name: k.arg.as_ref().map(|a| a.to_string()),
                value: self.expr(&k.value),
            })
            .collect()
    }

    fn exprs(&mut self, exprs: &[ast::Expr]) -> ThinVec<Expr> {
        exprs.iter().map(|e| self.expr(e)).collect()
    }

    fn boxed(&mut self, expr: &ast::Expr) -> Box<Expr> {
        Box::new(self.expr(expr))
    }

    fn expr(&mut self, expr: &ast::Expr) -> Expr {
        let sp = self.span(expr.range());
        if self.depth >= MAX_DEPTH {
            return Expr {
                span: sp,
                kind: ExprKind::Other(ThinVec::new()),
            };
        }
        self.depth += 1;
        let kind = self.expr_kind(expr);
        self.depth -= 1;
        Expr { span: sp, kind }
    }

    fn expr_kind(&mut self, expr: &ast::Expr) -> ExprKind {
        use ast::Expr as E;
        match expr {
            E::Name(n) => ExprKind::Name(self.name(&n.id)),
            E::Attribute(a) => ExprKind::Attribute {
                value: self.boxed(&a.value),
                attr: self.name(a.attr.as_str()),
            },
            E::Call(c) => ExprKind::Call {
                func: self.boxed(&c.func),
                args: self.exprs(&c.arguments.args),
                keywords: self.keywords(&c.arguments.keywords),
            },
            // Only short strings name things (devices, start methods, variables, modules); long ones
            // (docstrings, templates) would be copied each time they are evaluated.
            E::StringLiteral(s) if s.value.len() > MAX_STRING => ExprKind::Other(ThinVec::new()),
            E::StringLiteral(s) => ExprKind::Str(s.value.to_str().into()),
            E::NumberLiteral(n) => match &n.value {
                ast::Number::Int(i) => i
                    .as_i64()
                    .map_or(ExprKind::Other(ThinVec::new()), ExprKind::Int),
                _ => ExprKind::Other(ThinVec::new()),
            },
            E::BooleanLiteral(b) => ExprKind::Bool(b.value),
            E::NoneLiteral(_) => ExprKind::NoneLiteral,
            E::FString(f) => self.fstring(f),
            E::Lambda(l) => self.lambda(l),
            E::If(i) => ExprKind::IfExp {
                test: self.boxed(&i.test),
                body: self.boxed(&i.body),
                orelse: self.boxed(&i.orelse),
            },
            E::Compare(c) => ExprKind::Compare {
                left: Box::new(self.operand(&c.left)),
                ops: c.ops.iter().map(cmp_op).collect(),
                comparators: c.comparators.iter().map(|e| self.operand(e)).collect(),
            },
            E::BoolOp(b) => ExprKind::BoolOp {
                and: b.op == ast::BoolOp::And,
                values: self.exprs(&b.values),
            },
            E::UnaryOp(u) if u.op == ast::UnaryOp::Not => ExprKind::Not(self.boxed(&u.operand)),
            E::Subscript(s) => ExprKind::Subscript {
                value: self.boxed(&s.value),
                index: self.boxed(&s.slice),
            },
            E::Tuple(t) => ExprKind::Tuple(self.exprs(&t.elts)),
            E::List(l) => ExprKind::List(self.exprs(&l.elts)),
            E::Dict(d) => ExprKind::Dict(
                d.items
                    .iter()
                    .map(|item| {
                        (
                            item.key.as_ref().map(|k| self.expr(k)),
                            self.expr(&item.value),
                        )
                    })
                    .collect(),
            ),
            E::Named(n) => ExprKind::Named {
                target: self.boxed(&n.target),
                value: self.boxed(&n.value),
            },
            E::Starred(s) => ExprKind::Starred(self.boxed(&s.value)),
            E::ListComp(c) => self.comprehension(&c.generators, &[&c.elt]),
            E::SetComp(c) => self.comprehension(&c.generators, &[&c.elt]),
            E::Generator(c) => self.comprehension(&c.generators, &[&c.elt]),
            E::DictComp(c) => match c.key.as_deref() {
                Some(key) => self.comprehension(&c.generators, &[key, &c.value]),
                None => self.comprehension(&c.generators, &[&c.value]),
            },
            E::BinOp(b) if b.op == ast::Operator::MatMult => {
                ExprKind::MatMul(thin_vec![self.expr(&b.left), self.expr(&b.right)])
            }
            E::BinOp(b) if b.op == ast::Operator::Mod => {
                ExprKind::Modulo(thin_vec![self.expr(&b.left), self.expr(&b.right)])
            }
            E::Yield(_) | E::YieldFrom(_) => {
                self.yields += 1;
                ExprKind::Other(self.children(expr))
            }
            other => ExprKind::Other(self.children(other)),
        }
    }

    /// An f-string: its literal text with `{}` where each interpolation was, and the
    /// interpolated expressions in order.
    fn fstring(&mut self, f: &ast::ExprFString) -> ExprKind {
        let mut template = String::new();
        let mut parts = ThinVec::new();
        for part in f.value.iter() {
            match part {
                ast::FStringPart::Literal(lit) => template.push_str(&lit.value),
                ast::FStringPart::FString(fs) => {
                    for element in fs.elements.iter() {
                        match element {
                            ast::InterpolatedStringElement::Literal(lit) => {
                                template.push_str(&lit.value)
                            }
                            ast::InterpolatedStringElement::Interpolation(i) => {
                                template.push_str("{}");
                                parts.push(self.expr(&i.expression));
                            }
                        }
                    }
                }
            }
        }
        ExprKind::FString {
            template: template.into(),
            parts,
        }
    }

    /// A lambda: a function of its own (named `<lambda>`) whose body returns the expression.
    fn lambda(&mut self, l: &ast::ExprLambda) -> ExprKind {
        let (params, vararg, kwarg) = self.params(l.parameters.as_deref());
        let id = FuncId {
            file: self.module.file,
            index: self.module.functions.len() as u32,
        };
        self.module.functions.push(Function {
            name: "<lambda>".to_string(),
            name_span: self.span(l.range),
            params,
            vararg,
            kwarg,
            decorators: ThinVec::new(),
            body: ThinVec::new(),
            class: None,
            parent: self.function,
            names: Default::default(),
            yield_at: None,
        });
        let outer = self.function.replace(id);
        let outer_yields = std::mem::take(&mut self.yields);
        let body_expr = self.expr(&l.body);
        self.yields = outer_yields;
        self.function = outer;
        self.module.functions[id.index as usize].body = thin_vec![Stmt {
            span: body_expr.span,
            kind: StmtKind::Return(Some(body_expr)),
        }];
        ExprKind::Lambda(id)
    }

    fn comprehension(
        &mut self,
        generators: &[ast::Comprehension],
        elements: &[&ast::Expr],
    ) -> ExprKind {
        ExprKind::Comprehension {
            generators: generators
                .iter()
                .map(|g| Generator {
                    target: self.expr(&g.target),
                    iter: self.expr(&g.iter),
                    conditions: self.exprs(&g.ifs),
                })
                .collect(),
            elements: elements.iter().map(|e| self.expr(e)).collect(),
        }
    }

    /// An operand of a comparison: a negative number (`num_proc != -1`) is a number there. (Not
    /// elsewhere: `device=-1` means the CPU to some libraries, and is not a device index.)
    fn operand(&mut self, e: &ast::Expr) -> Expr {
        if let ast::Expr::UnaryOp(u) = e {
            if let (ast::UnaryOp::USub, ast::Expr::NumberLiteral(n)) = (u.op, &*u.operand) {
                if let Some(i) = n.value.as_int().and_then(|i| i.as_i64()) {
                    return Expr {
                        span: self.span(u.range),
                        kind: ExprKind::Int(-i),
                    };
                }
            }
        }
        self.expr(e)
    }

    /// The direct sub-expressions of an expression kind the model does not name.
    fn children(&mut self, expr: &ast::Expr) -> ThinVec<Expr> {
        struct Children<'a>(Vec<&'a ast::Expr>);
        impl<'a> Visitor<'a> for Children<'a> {
            fn visit_expr(&mut self, expr: &'a ast::Expr) {
                self.0.push(expr);
            }
        }
        let mut children = Children(Vec::new());
        walk_expr(&mut children, expr);
        children.0.into_iter().map(|e| self.expr(e)).collect()
    }
}

/// Where a body's `yield` statement is, if it is a plain `yield` (with or without a value) at the
/// top of the body or of a top-level `try`'s body: the places a `with` can stop and resume at.
fn yield_at(body: &[ast::Stmt]) -> Option<YieldAt> {
    let is_yield = |s: &ast::Stmt| matches!(s, ast::Stmt::Expr(e) if e.value.is_yield_expr());
    body.iter().enumerate().find_map(|(i, s)| match s {
        s if is_yield(s) => Some(YieldAt::Top(i)),
        ast::Stmt::Try(t) => t
            .body
            .iter()
            .position(is_yield)
            .map(|at| YieldAt::InTry { stmt: i, at }),
        _ => None,
    })
}

fn cmp_op(op: &ast::CmpOp) -> CmpOp {
    match op {
        ast::CmpOp::Eq => CmpOp::Eq,
        ast::CmpOp::NotEq => CmpOp::NotEq,
        ast::CmpOp::Lt => CmpOp::Lt,
        ast::CmpOp::LtE => CmpOp::LtE,
        ast::CmpOp::Gt => CmpOp::Gt,
        ast::CmpOp::GtE => CmpOp::GtE,
        ast::CmpOp::Is => CmpOp::Is,
        ast::CmpOp::IsNot => CmpOp::IsNot,
        ast::CmpOp::In => CmpOp::In,
        ast::CmpOp::NotIn => CmpOp::NotIn,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brackets_nested_past_pythons_limit_are_a_syntax_error_without_parsing() {
        let deep = |n: usize| format!("x = {}1{}\n", "(".repeat(n), ")".repeat(n));
        assert!(parse(&deep(MAX_NESTING), FileId(0)).is_ok());
        let Err(err) = parse(&deep(50_000), FileId(0)) else {
            panic!("50,000 levels parsed");
        };
        assert!(err.message.contains("too many nested brackets"));
        assert_eq!(err.span.start, 4 + MAX_NESTING as u32);
        // Brackets in strings and comments do not count.
        let quoted = format!("x = '{0}'  # {0}\ny = \"\"\"{0}\"\"\"\n", "(".repeat(500));
        assert!(parse(&quoted, FileId(0)).is_ok());
    }

    /// Where the scan's strings and comments end, as Python's tokenizer ends them.
    #[test]
    fn the_bracket_scan_ends_strings_and_comments_where_python_does() {
        let deep = "(".repeat(MAX_NESTING + 1);
        let found = |text: &str| too_deeply_nested(text).is_some();
        // A line break ends a comment (a lone CR too) and a single-quoted string, not a triple one.
        assert!(found(&format!("# note\r{deep}")));
        assert!(found(&format!("x = 'open\n{deep}")));
        assert!(!found(&format!("x = '''open\n{deep}")));
        // An escaped quote does not end a string; an escaped line break does not either.
        assert!(!found(&format!("x = 'a\\' {deep}'")));
        assert!(!found(&format!("x = 'a\\\n{deep}'")));
        // A lone quote inside a triple-quoted string does not end it; three do.
        assert!(!found(&format!("x = \"\"\"a\" {deep}\"\"\"")));
        assert!(found(&format!("x = \"\"\"a\"\"\" {deep}")));
        // Unterminated at the end of the text, or an escape as its last byte: nothing is left.
        assert!(!found(&format!("x = \"\"\"{deep}")));
        assert!(!found("x = '\\"));
        assert!(!found("# only a comment"));
    }
}
