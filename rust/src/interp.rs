//! The interpreter: runs a crate's function bodies in program order and reports effects to every
//! analysis through the `Analysis` trait. Branches run each way and join; loops run twice; calls
//! into the crate's own functions are followed with their arguments bound, within a depth limit
//! and a fuel budget. Statements and expressions are here; calls, statics and forks in `calls.rs`.

use std::rc::Rc;
use std::sync::Arc;

use gpulint_core::analysis::{Analysis, Context, ProcessEnd};
use gpulint_core::effect::{CudaInitSite, Effect};
use gpulint_core::source::{FileId, Span};
use rustc_hash::FxHashMap;
use syn::spanned::Spanned;

use crate::index::{self, Index, Resolved};
use crate::libraries::{self, Macro};
use crate::value::Value;

/// How a path of code stopped before its end.
pub enum Exit<'a> {
    Return(Value<'a>),
    /// `break` or `continue`: the loop's iteration ends.
    Break,
    /// No path goes on from here (the process ended, a panic, every branch returned).
    Stop,
}

pub type R<'a> = Result<Value<'a>, Exit<'a>>;

/// Calls followed at most this deep.
pub const MAX_DEPTH: usize = 24;
/// Expressions evaluated per entry point, at most.
pub const FUEL: u32 = 200_000;
/// Expressions (and conditions) nested at most this deep, counted across calls: deeper ones are
/// an unknown value. The interpreter recurses over the syntax tree, and files may nest it far
/// deeper than any real code does (see `nesting.rs`); this keeps its stack bounded.
pub const MAX_NESTED: u32 = 1_000;

/// What one simulated process has, copied at each branch.
#[derive(Clone)]
pub struct State<'a, A> {
    pub analyses: A,
    pub init: Option<CudaInitSite>,
    pub process: u32,
    pub child: bool,
    /// Statics read so far, by index (a lazy static's value once forced).
    pub statics: FxHashMap<usize, Value<'a>>,
    /// Once-cells' contents, by static index.
    pub cells: FxHashMap<usize, Value<'a>>,
    /// The current function's variables, innermost last.
    pub vars: Vec<(String, Value<'a>)>,
}

impl<'a, A: Analysis> State<'a, A> {
    pub fn fresh(process: u32) -> Self {
        State {
            analyses: A::default(),
            init: None,
            process,
            child: false,
            statics: FxHashMap::default(),
            cells: FxHashMap::default(),
            vars: Vec::new(),
        }
    }

    pub(crate) fn join(&mut self, other: State<'a, A>) {
        self.analyses.join(other.analyses);
        if self.init.is_none() {
            self.init = other.init;
        }
        for (k, v) in other.statics {
            self.statics.entry(k).or_insert(v);
        }
        for (k, v) in other.cells {
            self.cells.entry(k).or_insert(v);
        }
        for (mine, theirs) in self.vars.iter_mut().zip(other.vars) {
            if mine.0 == theirs.0 {
                let v = std::mem::replace(&mut mine.1, Value::Unknown);
                mine.1 = v.join(theirs.1);
            }
        }
    }
}

pub struct Interp<'a, A: Analysis> {
    pub index: &'a Index<'a>,
    pub facts: A::Facts,
    pub st: State<'a, A>,
    /// Analyses of this process's paths that ended it (an exit, a panic).
    pub ended: Vec<A>,
    /// States at the current function's `return`s.
    pub returns: Vec<(State<'a, A>, Value<'a>)>,
    pub file: FileId,
    pub scope: usize,
    pub self_ty: Option<Arc<str>>,
    pub function: Option<Span>,
    pub stack: Vec<usize>,
    pub fuel: u32,
    pub next_process: u32,
    /// The static whose initialiser runs now.
    pub initialising: Option<usize>,
    /// Expressions being evaluated now, one inside the other.
    nested: u32,
}

impl<'a, A: Analysis> Interp<'a, A> {
    pub fn new(index: &'a Index<'a>) -> Self {
        Interp {
            index,
            facts: A::Facts::default(),
            st: State::fresh(0),
            ended: Vec::new(),
            returns: Vec::new(),
            file: FileId(0),
            scope: 0,
            self_ty: None,
            function: None,
            stack: Vec::new(),
            fuel: FUEL,
            next_process: 1,
            initialising: None,
            nested: 0,
        }
    }

    /// Runs function `id` as an entry point, in a fresh process; `partial`: something else calls it.
    pub fn run_entry(&mut self, id: usize, partial: bool) {
        self.st = State::fresh(self.next_process);
        self.next_process += 1;
        self.ended.clear();
        self.returns.clear();
        self.fuel = FUEL;
        let _ = self.call_fn(id, Vec::new(), None, true);
        let state = std::mem::replace(&mut self.st, State::fresh(0));
        let end = ProcessEnd {
            partial,
            per_worker: false,
            cuda_initialised: state.init.is_some(),
        };
        self.finish(state.analyses, end);
    }

    /// Ends a process: its analyses, joined with those of its paths that ended it earlier.
    pub fn finish(&mut self, mut analyses: A, end: ProcessEnd) {
        for other in std::mem::take(&mut self.ended) {
            analyses.join(other);
        }
        analyses.finish(&end, &mut self.facts);
    }

    pub fn emit(&mut self, effect: Effect) {
        let cx = Context {
            function: self.function,
            ..Context::default()
        };
        self.st.analyses.effect(&effect, &cx, &mut self.facts);
    }

    pub fn span<T: Spanned>(&self, node: &T) -> Span {
        index::span_of(self.file, node)
    }

    /// This path ends the process here.
    pub fn end_process(&mut self) -> Exit<'a> {
        self.ended.push(self.st.analyses.clone());
        Exit::Stop
    }

    /// Runs `n` alternative paths from the current state and joins those that go on.
    pub fn branches(&mut self, n: usize, mut arm: impl FnMut(&mut Self, usize) -> R<'a>) -> R<'a> {
        let before = self.st.clone();
        let mut out: Option<(State<'a, A>, Value<'a>)> = None;
        for i in 0..n {
            self.st = before.clone();
            let value = match arm(self, i) {
                Ok(v) => v,
                Err(Exit::Break) => Value::Unknown,
                Err(Exit::Return(v)) => {
                    self.returns.push((self.st.clone(), v));
                    continue;
                }
                Err(Exit::Stop) => continue,
            };
            let state = std::mem::replace(&mut self.st, State::fresh(0));
            out = Some(match out {
                None => (state, value),
                Some((mut s, v)) => {
                    s.join(state);
                    (s, v.join(value))
                }
            });
        }
        match out {
            Some((s, v)) => {
                self.st = s;
                Ok(v)
            }
            None => Err(Exit::Stop),
        }
    }

    pub fn block(&mut self, block: &'a syn::Block) -> R<'a> {
        let mark = self.st.vars.len();
        let mut last = Value::Unknown;
        let result = (|| {
            for stmt in &block.stmts {
                last = self.stmt(stmt)?;
            }
            Ok(std::mem::replace(&mut last, Value::Unknown))
        })();
        self.st.vars.truncate(mark.min(self.st.vars.len()));
        result
    }

    fn stmt(&mut self, stmt: &'a syn::Stmt) -> R<'a> {
        match stmt {
            syn::Stmt::Local(local) => {
                let value = match &local.init {
                    Some(init) => {
                        let v = self.expr(&init.expr)?;
                        if let Some((_, diverge)) = &init.diverge {
                            // `let ... else { return }`: the else branch does not go on.
                            let _ = self.branches(1, |s, _| s.expr(diverge));
                        }
                        v
                    }
                    None => Value::Unknown,
                };
                self.bind(&local.pat, value);
                Ok(Value::Unknown)
            }
            syn::Stmt::Expr(e, semi) => {
                let v = self.expr(e)?;
                Ok(if semi.is_some() { Value::Unknown } else { v })
            }
            syn::Stmt::Macro(m) => self.mac(&m.mac),
            syn::Stmt::Item(_) => Ok(Value::Unknown),
        }
    }

    pub fn var(&self, name: &str) -> Option<&Value<'a>> {
        self.st
            .vars
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
    }

    fn set_var(&mut self, name: &str, value: Value<'a>) {
        if let Some(slot) = self.st.vars.iter_mut().rev().find(|(n, _)| n == name) {
            slot.1 = value;
        }
    }

    /// Binds the names a pattern introduces to (parts of) a value.
    pub fn bind(&mut self, pat: &'a syn::Pat, value: Value<'a>) {
        match pat {
            syn::Pat::Ident(p) => {
                if let Some((_, sub)) = &p.subpat {
                    self.bind(sub, value.clone());
                }
                self.st.vars.push((p.ident.to_string(), value));
            }
            syn::Pat::Type(t) => self.bind(&t.pat, value),
            syn::Pat::Reference(r) => self.bind(&r.pat, value),
            syn::Pat::Paren(p) => self.bind(&p.pat, value),
            syn::Pat::Tuple(t) => {
                for (i, p) in t.elems.iter().enumerate() {
                    let item = match &value {
                        Value::Tuple(items) => items.get(i).cloned().unwrap_or(Value::Unknown),
                        _ => Value::Unknown,
                    };
                    self.bind(p, item);
                }
            }
            syn::Pat::TupleStruct(t) => {
                // `Some(x)`, `Ok(x)`: the value inside.
                let one = t.elems.len() == 1;
                for p in &t.elems {
                    self.bind(p, if one { value.clone() } else { Value::Unknown });
                }
            }
            syn::Pat::Struct(s) => {
                for field in &s.fields {
                    let name = match &field.member {
                        syn::Member::Named(n) => n.to_string(),
                        syn::Member::Unnamed(i) => i.index.to_string(),
                    };
                    let v = match &value {
                        Value::Struct(_, fields) => fields
                            .iter()
                            .find(|(n, _)| *n == name)
                            .map_or(Value::Unknown, |(_, v)| v.clone()),
                        _ => Value::Unknown,
                    };
                    self.bind(&field.pat, v);
                }
            }
            syn::Pat::Or(o) => {
                if let Some(first) = o.cases.first() {
                    self.bind(first, value);
                }
            }
            syn::Pat::Slice(s) => {
                for p in &s.elems {
                    self.bind(p, Value::Unknown);
                }
            }
            _ => {}
        }
    }

    pub fn expr(&mut self, e: &'a syn::Expr) -> R<'a> {
        if self.fuel == 0 || self.nested >= MAX_NESTED {
            return Ok(Value::Unknown);
        }
        self.fuel -= 1;
        self.nested += 1;
        let r = self.expr_in(e);
        self.nested -= 1;
        r
    }

    fn expr_in(&mut self, e: &'a syn::Expr) -> R<'a> {
        use syn::Expr as E;
        Ok(match e {
            E::Lit(l) => match &l.lit {
                syn::Lit::Int(i) => i.base10_parse::<i64>().map_or(Value::Unknown, Value::Int),
                syn::Lit::Str(s) => Value::Str(s.value().into()),
                _ => Value::Unknown,
            },
            E::Path(p) => self.path_value(p),
            E::Call(c) => return self.call(c),
            E::MethodCall(m) => return self.method_call(m),
            E::Macro(m) => return self.mac(&m.mac),
            E::Block(b) => return self.block(&b.block),
            E::Unsafe(u) => return self.block(&u.block),
            E::Const(c) => return self.block(&c.block),
            E::TryBlock(t) => return self.block(&t.block),
            E::Async(a) => return self.block(&a.block),
            E::Await(a) => return self.expr(&a.base),
            E::Paren(p) => return self.expr(&p.expr),
            E::Group(g) => return self.expr(&g.expr),
            E::Reference(r) => return self.expr(&r.expr),
            E::Cast(c) => return self.expr(&c.expr),
            E::Try(t) => return self.expr(&t.expr),
            E::Unary(u) => {
                let v = self.expr(&u.expr)?;
                match (u.op, v) {
                    (syn::UnOp::Deref(_), v) => v,
                    (syn::UnOp::Neg(_), Value::Int(i)) => Value::Int(-i),
                    _ => Value::Unknown,
                }
            }
            E::Binary(b) => {
                let l = self.expr(&b.left)?;
                let r = self.expr(&b.right)?;
                binary(&b.op, l, r)
            }
            E::Assign(a) => return self.assign(a),
            E::Field(f) => return self.field(f),
            E::Index(i) => return self.indexed(i),
            E::Tuple(t) => {
                let mut items = Vec::new();
                for e in &t.elems {
                    items.push(self.expr(e)?);
                }
                Value::Tuple(Rc::new(items))
            }
            E::Array(a) => {
                for e in &a.elems {
                    self.expr(e)?;
                }
                Value::Unknown
            }
            E::Repeat(r) => {
                self.expr(&r.expr)?;
                Value::Unknown
            }
            E::Range(r) => {
                if let Some(s) = &r.start {
                    self.expr(s)?;
                }
                if let Some(e) = &r.end {
                    self.expr(e)?;
                }
                Value::Unknown
            }
            E::Struct(s) => return self.struct_value(s),
            E::Closure(c) => Value::Closure(c, self.file, self.scope),
            E::If(i) => return self.if_expr(i),
            E::Match(m) => return self.match_expr(m),
            E::ForLoop(f) => return self.for_loop(f),
            E::While(w) => return self.while_loop(w),
            E::Loop(l) => return self.looped(false, |s| s.block(&l.body)),
            E::Let(l) => {
                let v = self.expr(&l.expr)?;
                self.bind(&l.pat, v);
                Value::Unknown
            }
            E::Return(r) => {
                let v = match &r.expr {
                    Some(e) => self.expr(e)?,
                    None => Value::Unknown,
                };
                return Err(Exit::Return(v));
            }
            E::Break(b) => {
                if let Some(e) = &b.expr {
                    self.expr(e)?;
                }
                return Err(Exit::Break);
            }
            E::Continue(_) => return Err(Exit::Break),
            _ => Value::Unknown,
        })
    }

    /// `a = b`: a plain variable takes the value; any other place is evaluated for its effects.
    fn assign(&mut self, a: &'a syn::ExprAssign) -> R<'a> {
        let v = self.expr(&a.right)?;
        if let syn::Expr::Path(p) = &*a.left {
            if let Some(name) = p.path.get_ident() {
                self.set_var(&name.to_string(), v);
            }
        } else {
            self.expr(&a.left)?;
        }
        Ok(Value::Unknown)
    }

    /// A field of a struct or tuple value; a field of a CUDA object is derived from it.
    fn field(&mut self, f: &'a syn::ExprField) -> R<'a> {
        let base = self.expr(&f.base)?;
        let name = match &f.member {
            syn::Member::Named(n) => n.to_string(),
            syn::Member::Unnamed(i) => i.index.to_string(),
        };
        Ok(match base {
            Value::Struct(_, fields) => fields
                .iter()
                .find(|(n, _)| *n == name)
                .map_or(Value::Unknown, |(_, v)| v.clone()),
            Value::Tuple(items) => name
                .parse::<usize>()
                .ok()
                .and_then(|i| items.get(i).cloned())
                .unwrap_or(Value::Unknown),
            Value::Cuda { object, ordinal } => Value::Cuda {
                object: object.derived(),
                ordinal,
            },
            _ => Value::Unknown,
        })
    }

    /// `base[index]`: an element of a CUDA object is derived from it.
    fn indexed(&mut self, i: &'a syn::ExprIndex) -> R<'a> {
        let base = self.expr(&i.expr)?;
        self.expr(&i.index)?;
        Ok(match base {
            Value::Cuda { object, ordinal } => Value::Cuda {
                object: object.derived(),
                ordinal,
            },
            _ => Value::Unknown,
        })
    }

    /// A struct literal: its fields' values, typed when the path names a local type.
    fn struct_value(&mut self, s: &'a syn::ExprStruct) -> R<'a> {
        let segs = index::segments(&s.path);
        let ty = match self
            .index
            .resolve(self.scope, &segs, self.self_ty.as_deref())
        {
            Resolved::Local(p) => Some(Arc::from(p)),
            _ => None,
        };
        let mut fields = Vec::new();
        for f in &s.fields {
            let name = match &f.member {
                syn::Member::Named(n) => n.to_string(),
                syn::Member::Unnamed(i) => i.index.to_string(),
            };
            fields.push((name, self.expr(&f.expr)?));
        }
        if let Some(rest) = &s.rest {
            self.expr(rest)?;
        }
        Ok(Value::Struct(ty, Rc::new(fields)))
    }

    /// A `for` loop: the iterated expression once, then the body as a loop, its pattern unknown.
    fn for_loop(&mut self, f: &'a syn::ExprForLoop) -> R<'a> {
        self.expr(&f.expr)?;
        let pat = &f.pat;
        self.looped(true, |s| {
            let mark = s.st.vars.len();
            s.bind(pat, Value::Unknown);
            let r = s.block(&f.body);
            s.st.vars.truncate(mark.min(s.st.vars.len()));
            r
        })
    }

    /// A `while` loop: the condition and the body, as a loop.
    fn while_loop(&mut self, w: &'a syn::ExprWhile) -> R<'a> {
        let cond = &w.cond;
        self.looped(true, |s| {
            let mark = s.st.vars.len();
            s.condition(cond)?;
            let r = s.block(&w.body);
            s.st.vars.truncate(mark.min(s.st.vars.len()));
            r
        })
    }

    /// A condition, binding what an `if let` pattern introduces.
    fn condition(&mut self, cond: &'a syn::Expr) -> R<'a> {
        if self.nested >= MAX_NESTED {
            return Ok(Value::Unknown);
        }
        self.nested += 1;
        let r = self.condition_in(cond);
        self.nested -= 1;
        r
    }

    fn condition_in(&mut self, cond: &'a syn::Expr) -> R<'a> {
        match cond {
            syn::Expr::Let(l) => {
                let v = self.expr(&l.expr)?;
                self.bind(&l.pat, v);
                Ok(Value::Unknown)
            }
            syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_)) => {
                self.condition(&b.left)?;
                self.condition(&b.right)
            }
            other => self.expr(other),
        }
    }

    /// A loop's body, twice (so what one iteration leaves is seen by the next), joined with not
    /// running it at all where that can happen (`for`, `while`).
    fn looped(&mut self, may_skip: bool, mut body: impl FnMut(&mut Self) -> R<'a>) -> R<'a> {
        let arms = if may_skip { 2 } else { 1 };
        self.branches(arms, |s, i| {
            if i == 1 {
                return Ok(Value::Unknown);
            }
            for _ in 0..2 {
                match body(s) {
                    Ok(_) | Err(Exit::Break) => {}
                    Err(e) => return Err(e),
                }
            }
            Ok(Value::Unknown)
        })?;
        Ok(Value::Unknown)
    }

    fn if_expr(&mut self, i: &'a syn::ExprIf) -> R<'a> {
        if let Some((site, child_in_then)) = self.fork_condition(&i.cond)? {
            return self.branches(2, |s, arm| {
                let is_then = arm == 0;
                if is_then == child_in_then {
                    s.run_child(site, |s| match (is_then, &i.else_branch) {
                        (true, _) => s.block(&i.then_branch),
                        (false, Some((_, e))) => s.expr(e),
                        (false, None) => Ok(Value::Unknown),
                    });
                    return Err(Exit::Stop);
                }
                match (is_then, &i.else_branch) {
                    (true, _) => s.block(&i.then_branch),
                    (false, Some((_, e))) => s.expr(e),
                    (false, None) => Ok(Value::Unknown),
                }
            });
        }
        self.branches(2, |s, arm| {
            let mark = s.st.vars.len();
            let r = match (arm, &i.else_branch) {
                (0, _) => {
                    s.condition(&i.cond)?;
                    s.block(&i.then_branch)
                }
                (_, Some((_, e))) => {
                    s.expr_without_bindings(&i.cond)?;
                    s.expr(e)
                }
                (_, None) => {
                    s.expr_without_bindings(&i.cond)?;
                    Ok(Value::Unknown)
                }
            };
            s.st.vars.truncate(mark.min(s.st.vars.len()));
            r
        })
    }

    fn expr_without_bindings(&mut self, cond: &'a syn::Expr) -> R<'a> {
        let mark = self.st.vars.len();
        let r = self.condition(cond);
        self.st.vars.truncate(mark.min(self.st.vars.len()));
        r
    }

    fn match_expr(&mut self, m: &'a syn::ExprMatch) -> R<'a> {
        let scrutinee = self.expr(&m.expr)?;
        let fork = match &scrutinee {
            Value::Pid(site) => Some(*site),
            _ => None,
        };
        self.branches(m.arms.len(), |s, i| {
            let arm = &m.arms[i];
            let mark = s.st.vars.len();
            let child = fork.filter(|_| s.fork_side(&arm.pat) == Some(true));
            let r = match child {
                Some(site) => {
                    s.run_child(site, |s| {
                        s.bind(&arm.pat, Value::Unknown);
                        s.arm_body(arm)
                    });
                    Err(Exit::Stop)
                }
                None => {
                    let bound = if fork.is_some() {
                        Value::Unknown
                    } else {
                        scrutinee.clone()
                    };
                    s.bind(&arm.pat, bound);
                    s.arm_body(arm)
                }
            };
            s.st.vars.truncate(mark.min(s.st.vars.len()));
            r
        })
    }

    fn arm_body(&mut self, arm: &'a syn::Arm) -> R<'a> {
        if let Some((_, guard)) = &arm.guard {
            self.expr(guard)?;
        }
        self.expr(&arm.body)
    }

    /// For a fork's result: whether a pattern takes the child's side (`Ok(ForkResult::Child)`,
    /// `0`), the parent's, or says nothing.
    pub fn fork_side(&self, pat: &syn::Pat) -> Option<bool> {
        use libraries::Behaviour as B;
        let by_path = |path: &syn::Path| {
            let segs = index::segments(path);
            match self.index.resolve(self.scope, &segs, None) {
                Resolved::External(p) => match libraries::lookup(&p).map(|r| r.behaviour) {
                    Some(B::ForkChild) => Some(true),
                    Some(B::ForkParent) => Some(false),
                    _ => None,
                },
                _ => None,
            }
        };
        match pat {
            syn::Pat::Path(p) => by_path(&p.path),
            syn::Pat::Ident(p) if p.subpat.is_none() => None,
            syn::Pat::Struct(s) => by_path(&s.path),
            syn::Pat::TupleStruct(t) => {
                by_path(&t.path).or_else(|| t.elems.iter().find_map(|p| self.fork_side(p)))
            }
            syn::Pat::Paren(p) => self.fork_side(&p.pat),
            syn::Pat::Reference(r) => self.fork_side(&r.pat),
            syn::Pat::Or(o) => o.cases.iter().find_map(|p| self.fork_side(p)),
            syn::Pat::Lit(l) => match &l.lit {
                syn::Lit::Int(i) => Some(i.base10_parse::<i64>().ok()? == 0),
                _ => None,
            },
            _ => None,
        }
    }

    /// `pid == 0` (child in the `then` branch), `pid != 0` or `pid > 0` (child in `else`) on a
    /// fork's result, and `if let Ok(ForkResult::Child) = fork()`.
    fn fork_condition(&mut self, cond: &'a syn::Expr) -> Result<Option<(Span, bool)>, Exit<'a>> {
        match cond {
            syn::Expr::Binary(b) => {
                let zero = |e: &syn::Expr| matches!(e, syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) if i.base10_digits() == "0");
                let zero_right = zero(&b.right);
                let pid_side = if zero_right {
                    &b.left
                } else if zero(&b.left) {
                    &b.right
                } else {
                    return Ok(None);
                };
                let child_in_then = match b.op {
                    syn::BinOp::Eq(_) => true,
                    syn::BinOp::Ne(_) => false,
                    syn::BinOp::Gt(_) if zero_right => false,
                    _ => return Ok(None),
                };
                if !self.may_be_pid(pid_side) {
                    return Ok(None);
                }
                match self.expr(pid_side)? {
                    Value::Pid(site) => Ok(Some((site, child_in_then))),
                    _ => Ok(None),
                }
            }
            syn::Expr::Let(l) => {
                let side = self.fork_side(&l.pat);
                if side.is_none() || !self.may_be_pid(&l.expr) {
                    return Ok(None);
                }
                match self.expr(&l.expr)? {
                    Value::Pid(site) => Ok(side.map(|child| (site, child))),
                    _ => Ok(None),
                }
            }
            _ => Ok(None),
        }
    }

    /// Only a variable or a call may hold a fork's result: evaluating it twice is harmless then.
    fn may_be_pid(&self, e: &syn::Expr) -> bool {
        match e {
            syn::Expr::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|i| matches!(self.var(&i.to_string()), Some(Value::Pid(_)))),
            syn::Expr::Call(_) | syn::Expr::Unsafe(_) | syn::Expr::MethodCall(_) => true,
            syn::Expr::Paren(p) => self.may_be_pid(&p.expr),
            _ => false,
        }
    }

    /// A path expression: a variable, a function, a static, a library item.
    fn path_value(&mut self, p: &'a syn::ExprPath) -> Value<'a> {
        if let Some(ident) = p.path.get_ident() {
            let name = ident.to_string();
            if let Some(v) = self.var(&name) {
                return v.clone();
            }
        }
        let segs = index::segments(&p.path);
        match self
            .index
            .resolve(self.scope, &segs, self.self_ty.as_deref())
        {
            Resolved::Fn(id) => Value::Fn(id),
            Resolved::Static(id) => self.read_static(id, self.span(p)),
            Resolved::External(path) => Value::Item(path.into()),
            Resolved::Local(_) => Value::Unknown,
        }
    }

    /// A macro: those that end a path, and those whose arguments are code that runs.
    pub fn mac(&mut self, mac: &'a syn::Macro) -> R<'a> {
        let Some(name) = mac.path.segments.last().map(|s| s.ident.to_string()) else {
            return Ok(Value::Unknown);
        };
        match libraries::macro_kind(&name) {
            Some(Macro::Diverges) => Err(self.end_process()),
            Some(Macro::Evaluates) => {
                let index = self.index;
                for a in index.macro_args(mac) {
                    self.expr(a)?;
                }
                Ok(Value::Unknown)
            }
            None => Ok(Value::Unknown),
        }
    }
}

fn binary<'a>(op: &syn::BinOp, l: Value<'a>, r: Value<'a>) -> Value<'a> {
    use syn::BinOp as B;
    match (op, l, r) {
        // `rank % n` is a number on this node.
        (B::Rem(_), _, _) => Value::Unknown,
        (B::Add(_), Value::Int(a), Value::Int(b)) => Value::Int(a.wrapping_add(b)),
        (B::Sub(_), Value::Int(a), Value::Int(b)) => Value::Int(a.wrapping_sub(b)),
        (B::Mul(_), Value::Int(a), Value::Int(b)) => Value::Int(a.wrapping_mul(b)),
        (B::Add(_) | B::Sub(_) | B::Mul(_), l, r) => match (l, r) {
            (v @ Value::Rank { .. }, _) | (_, v @ Value::Rank { .. }) => v,
            (v @ Value::Param(_), _) | (_, v @ Value::Param(_)) => v,
            _ => Value::Unknown,
        },
        _ => Value::Unknown,
    }
}
