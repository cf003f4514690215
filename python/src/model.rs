//! The Python frontend's own compact program model. Rules and the semantic layer see only these types;
//! `lower.rs` is the one place that knows the parser's AST.

use crate::source::Span;
use thin_vec::ThinVec;

use crate::source::FileId;

/// A function (or lambda): its file, and its index in that module's [`Module::functions`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncId {
    pub file: FileId,
    pub index: u32,
}

/// A class: its file, and its index in that module's [`Module::classes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClassId {
    pub file: FileId,
    pub index: u32,
}

/// One parsed Python module.
#[derive(Debug, Default)]
pub struct Module {
    pub file: FileId,
    pub body: ThinVec<Stmt>,
    /// The module's docstring, at most 16 KiB of it.
    pub docstring: Option<std::sync::Arc<str>>,
    pub functions: Vec<Function>,
    pub classes: Vec<Class>,
}

impl Module {
    /// A function of this module (`id.file` is this module's file).
    pub fn function(&self, id: FuncId) -> &Function {
        &self.functions[id.index as usize]
    }
    pub fn class(&self, id: ClassId) -> &Class {
        &self.classes[id.index as usize]
    }
}

#[derive(Debug)]
pub struct Function {
    /// `<lambda>` for lambdas.
    pub name: String,
    /// The span of the name (the whole lambda for lambdas).
    pub name_span: Span,
    pub params: Vec<Param>,
    pub vararg: Option<String>,
    pub kwarg: Option<String>,
    pub decorators: ThinVec<Expr>,
    pub body: ThinVec<Stmt>,
    /// The class whose body defines this function directly.
    pub class: Option<ClassId>,
    /// The function whose body defines this one (closures).
    pub parent: Option<FuncId>,
    /// Facts about the body's names, computed once for every file's analysis that runs it.
    pub names: FunctionNames,
    /// Where the body's only `yield` statement is, when it is one the interpreter can stop at
    /// (see `YieldAt`).
    pub yield_at: Option<YieldAt>,
}

/// The place of a generator's only `yield`, as a statement of its body or of a top-level `try`'s
/// body: a `@contextmanager` runs the code before it on entering a `with` and the rest on leaving.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum YieldAt {
    /// `body[0]`.
    Top(usize),
    /// `body[stmt]` is a `try` whose body's statement `at` is the `yield`.
    InTry { stmt: usize, at: usize },
}

/// The names a function reads from enclosing scopes and the module globals it writes (see
/// `semantic::names`), filled on first use: every checked file that imports a module runs the
/// same functions.
#[derive(Debug, Default)]
pub struct FunctionNames {
    pub free: std::sync::OnceLock<std::sync::Arc<Vec<String>>>,
    pub written_globals: std::sync::OnceLock<std::sync::Arc<Vec<String>>>,
    /// The names it calls directly (`f(...)`).
    pub called: std::sync::OnceLock<std::sync::Arc<Vec<String>>>,
}

/// What a method's first parameter receives when it is called through an instance or its class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Receives {
    /// A plain method: the instance (nothing when called through the class).
    Instance,
    /// `@classmethod`: the class, either way.
    Class,
    /// `@staticmethod`: nothing.
    Nothing,
}

impl Function {
    /// How the function is bound when read as an attribute (a plain function outside a class:
    /// like a method).
    pub fn receives(&self) -> Receives {
        let named = |n: &str| {
            self.decorators
                .iter()
                .any(|d| matches!(&d.kind, ExprKind::Name(x) if &**x == n))
        };
        if named("classmethod") {
            Receives::Class
        } else if named("staticmethod") {
            Receives::Nothing
        } else {
            Receives::Instance
        }
    }
}

#[derive(Debug)]
pub struct Param {
    pub name: String,
    pub default: Option<Expr>,
    pub keyword_only: bool,
}

#[derive(Debug)]
pub struct Class {
    pub name: String,
    pub name_span: Span,
    pub bases: ThinVec<Expr>,
    pub keywords: ThinVec<Keyword>,
    pub decorators: ThinVec<Expr>,
    pub body: ThinVec<Stmt>,
    /// Methods defined directly in the body, by name.
    pub methods: Vec<(String, FuncId)>,
    /// Defined inside a function (directly, or in a class that is): its qualified name passes
    /// through `<locals>`, so nothing can import it by name.
    pub local: bool,
}

impl Class {
    pub fn method(&self, name: &str) -> Option<FuncId> {
        self.methods
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, id)| *id)
    }
}

#[derive(Debug)]
pub struct Stmt {
    pub span: Span,
    pub kind: StmtKind,
}

#[derive(Debug)]
pub enum StmtKind {
    /// `import a.b as c`: one entry per alias.
    Import(ThinVec<ImportName>),
    /// `from .m import x as y`.
    ImportFrom {
        module: Option<String>,
        level: u32,
        names: ThinVec<ImportName>,
    },
    Def(FuncId),
    Class(ClassId),
    Assign {
        targets: ThinVec<Expr>,
        value: Expr,
    },
    /// Boxed, as `For`'s expressions: two inline expressions would make every statement larger.
    AugAssign {
        target: Box<Expr>,
        value: Box<Expr>,
    },
    Expr(Expr),
    /// `elif` chains are nested `If`s in `orelse`.
    If {
        test: Expr,
        body: ThinVec<Stmt>,
        orelse: ThinVec<Stmt>,
    },
    For {
        target: Box<Expr>,
        iter: Box<Expr>,
        body: ThinVec<Stmt>,
        orelse: ThinVec<Stmt>,
    },
    While {
        test: Expr,
        body: ThinVec<Stmt>,
        orelse: ThinVec<Stmt>,
    },
    With {
        items: ThinVec<WithItem>,
        body: ThinVec<Stmt>,
    },
    Try {
        body: ThinVec<Stmt>,
        handlers: ThinVec<ThinVec<Stmt>>,
        orelse: ThinVec<Stmt>,
        finally: ThinVec<Stmt>,
    },
    Match {
        subject: Expr,
        cases: ThinVec<ThinVec<Stmt>>,
    },
    Return(Option<Expr>),
    Raise(Option<Expr>),
    Global(ThinVec<String>),
    Break,
    Continue,
    /// Anything else; its expressions are still evaluated in order.
    Other(ThinVec<Expr>),
}

#[derive(Debug)]
pub struct ImportName {
    pub name: String,
    pub asname: Option<String>,
}

#[derive(Debug)]
pub struct WithItem {
    pub context: Expr,
    pub target: Option<Expr>,
}

#[derive(Debug)]
pub struct Expr {
    pub span: Span,
    pub kind: ExprKind,
}

#[derive(Debug)]
pub struct Keyword {
    /// `None` for `**kwargs`.
    pub name: Option<String>,
    pub value: Expr,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    NotEq,
    Lt,
    LtE,
    Gt,
    GtE,
    Is,
    IsNot,
    In,
    NotIn,
}

#[derive(Debug)]
pub enum ExprKind {
    Name(std::sync::Arc<str>),
    Attribute {
        value: Box<Expr>,
        attr: std::sync::Arc<str>,
    },
    Call {
        func: Box<Expr>,
        /// Positional arguments; `*args` is a `Starred` expression.
        args: ThinVec<Expr>,
        keywords: ThinVec<Keyword>,
    },
    Str(std::sync::Arc<str>),
    Int(i64),
    Bool(bool),
    NoneLiteral,
    /// An f-string: its literal text with `{}` where each interpolation stands, and those expressions.
    FString {
        template: Box<str>,
        parts: ThinVec<Expr>,
    },
    Lambda(FuncId),
    IfExp {
        test: Box<Expr>,
        body: Box<Expr>,
        orelse: Box<Expr>,
    },
    Compare {
        left: Box<Expr>,
        ops: ThinVec<CmpOp>,
        comparators: ThinVec<Expr>,
    },
    BoolOp {
        /// `and` (else `or`).
        and: bool,
        values: ThinVec<Expr>,
    },
    Not(Box<Expr>),
    Subscript {
        value: Box<Expr>,
        index: Box<Expr>,
    },
    Tuple(ThinVec<Expr>),
    List(ThinVec<Expr>),
    Dict(ThinVec<(Option<Expr>, Expr)>),
    Named {
        target: Box<Expr>,
        value: Box<Expr>,
    },
    Starred(Box<Expr>),
    /// A comprehension: the generators' iterables and conditions, then the element(s).
    Comprehension {
        generators: ThinVec<Generator>,
        elements: ThinVec<Expr>,
    },
    /// `left @ right`: the operator that multiplies matrices.
    MatMul(ThinVec<Expr>),
    /// `left % right`: the remainder (of a rank by a number of devices, or not).
    Modulo(ThinVec<Expr>),
    /// Any other expression, reduced to its sub-expressions in source order.
    Other(ThinVec<Expr>),
}

#[derive(Debug)]
pub struct Generator {
    pub target: Expr,
    pub iter: Expr,
    pub conditions: ThinVec<Expr>,
}

impl Expr {
    /// The dotted path of a `Name` or `Attribute` chain (`torch.cuda.set_device`), if it is one.
    pub fn dotted(&self) -> Option<String> {
        match &self.kind {
            ExprKind::Name(n) => Some(n.to_string()),
            ExprKind::Attribute { value, attr } => {
                let mut base = value.dotted()?;
                base.push('.');
                base.push_str(attr);
                Some(base)
            }
            _ => None,
        }
    }

    /// The keyword argument `name` of a call expression.
    pub fn keyword(&self, name: &str) -> Option<&Expr> {
        match &self.kind {
            ExprKind::Call { keywords, .. } => keywords
                .iter()
                .find(|k| k.name.as_deref() == Some(name))
                .map(|k| &k.value),
            _ => None,
        }
    }
}

impl StmtKind {
    /// Calls `f` on each expression this statement evaluates itself (not those inside nested
    /// blocks). A visitor, not a list: the name scans call it on every statement of a tree.
    pub fn each_expression<'a>(&'a self, mut f: impl FnMut(&'a Expr)) {
        match self {
            StmtKind::Assign { targets, value } => {
                targets.iter().for_each(&mut f);
                f(value);
            }
            StmtKind::AugAssign { target, value } => {
                f(target);
                f(value);
            }
            StmtKind::Expr(e) | StmtKind::Return(Some(e)) | StmtKind::Raise(Some(e)) => f(e),
            StmtKind::If { test, .. } | StmtKind::While { test, .. } => f(test),
            StmtKind::For { target, iter, .. } => {
                f(target);
                f(iter);
            }
            StmtKind::With { items, .. } => items.iter().for_each(|i| f(&i.context)),
            StmtKind::Match { subject, .. } => f(subject),
            StmtKind::Other(items) => items.iter().for_each(f),
            _ => {}
        }
    }

    /// Calls `f` on each statement block nested in this one (not function or class bodies).
    pub fn each_block<'a>(&'a self, mut f: impl FnMut(&'a [Stmt])) {
        match self {
            StmtKind::If { body, orelse, .. }
            | StmtKind::For { body, orelse, .. }
            | StmtKind::While { body, orelse, .. } => {
                f(body);
                f(orelse);
            }
            StmtKind::With { body, .. } => f(body),
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finally,
            } => {
                f(body);
                handlers.iter().for_each(|h| f(h));
                f(orelse);
                f(finally);
            }
            StmtKind::Match { cases, .. } => cases.iter().for_each(|c| f(c)),
            _ => {}
        }
    }

    /// Whether `f` holds for some block nested in this one (see [`StmtKind::each_block`]).
    pub fn any_block(&self, mut f: impl FnMut(&[Stmt]) -> bool) -> bool {
        let mut found = false;
        self.each_block(|b| found = found || f(b));
        found
    }
}

#[cfg(test)]
mod tests {
    /// The model of every imported module is held for the whole run (on transformers, 118,521
    /// statements and 518,293 expressions): a variant that grows these grows the peak.
    #[test]
    fn statements_and_expressions_stay_small() {
        assert!(std::mem::size_of::<super::Expr>() <= 48);
        assert!(std::mem::size_of::<super::Stmt>() <= 88);
    }
}
