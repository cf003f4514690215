//! Expressions: names, attributes, literals, operators, subscripts, comprehensions (calls are in
//! `calls.rs`).

use std::sync::Arc;

use gpulint_core::analysis::Analysis;
use gpulint_core::effect::DeviceIndex;

use super::bindings::{is_environ, LAUNCH_SELECTION};
use super::value::{Device, Value};
use super::{Interp, Object};
use crate::libraries::torch_ops::OpClass;
use crate::libraries::{self, EnvRole};
use crate::model::{ArithOp, Expr, ExprKind, Generator};
use crate::source::Span;

impl<'m, A: Analysis> Interp<'m, A> {
    /// Evaluates without counting reads of CUDA objects as uses (assignment targets).
    pub(super) fn eval_quiet(&mut self, expr: &'m Expr) -> Value {
        match &expr.kind {
            ExprKind::Name(name) => self.lookup(name).unwrap_or_default(),
            _ => self.eval(expr),
        }
    }

    pub(super) fn eval(&mut self, expr: &'m Expr) -> Value {
        self.budget.spend();
        match &expr.kind {
            ExprKind::Name(name) => self.eval_name(name, expr.span),
            ExprKind::Attribute { value, attr } => self.eval_attribute(value, attr, expr.span),
            ExprKind::Call {
                func,
                args,
                keywords,
            } => self.eval_call(expr, func, args, keywords),
            ExprKind::Str(s) => Value::Str(s.clone()),
            ExprKind::Int(i) => Value::Int(*i),
            ExprKind::Bool(b) => Value::Bool(*b),
            ExprKind::NoneLiteral => Value::None,
            ExprKind::FString { template, parts } => self.eval_fstring(template, parts),
            ExprKind::Lambda(id) => {
                let captures = self.frames.last().map(|f| Arc::clone(&f.locals));
                Value::Function(*id, captures)
            }
            ExprKind::IfExp { test, body, orelse } => {
                self.eval(test);
                let a = self.eval(body);
                let b = self.eval(orelse);
                a.join(b)
            }
            ExprKind::Compare {
                left,
                ops,
                comparators,
            } => {
                let left = self.eval(left);
                let right: Vec<Value> = comparators.iter().map(|c| self.eval(c)).collect();
                super::one_rank::compare(&left, ops, &right)
            }
            ExprKind::BoolOp { and, values } => {
                let values = values.iter().map(|v| self.eval(v)).collect();
                super::one_rank::bool_op(*and, values)
            }
            ExprKind::Not(inner) => {
                let inner = self.eval(inner);
                super::one_rank::not(inner)
            }
            ExprKind::Subscript { value, index } => {
                let container = self.eval(value);
                let key = self.eval(index);
                self.subscript(container, key)
            }
            ExprKind::Tuple(items) | ExprKind::List(items) => {
                Value::seq(items.iter().map(|e| self.eval(e)).collect())
            }
            ExprKind::Dict(items) => self.eval_dict(items),
            ExprKind::Named { target, value } => {
                let v = self.eval(value);
                self.assign(target, v.clone(), expr.span);
                v
            }
            ExprKind::Starred(inner) => self.eval(inner),
            ExprKind::Comprehension {
                generators,
                elements,
            } => self.eval_comprehension(generators, elements, expr.span),
            ExprKind::MatMul(operands) => {
                let values: Vec<Value> = operands.iter().map(|e| self.eval(e)).collect();
                self.host_compute(expr.span, "`@`", &values)
                    .unwrap_or_else(|| derived(values))
            }
            ExprKind::Arith(ArithOp::Mod, operands) => self.eval_modulo(expr.span, operands),
            ExprKind::Arith(op, operands) => {
                let values: Vec<Value> = operands.iter().map(|e| self.eval(e)).collect();
                self.arith(expr.span, *op, values)
            }
            ExprKind::Other(children) => {
                let values: Vec<Value> = children.iter().map(|e| self.eval(e)).collect();
                derived(values)
            }
        }
    }

    /// `a + b` and the like: integers are computed (tensor shapes are products), host tensors
    /// computed on element by element, anything else derived from its operands.
    pub(super) fn arith(&mut self, span: Span, op: ArithOp, values: Vec<Value>) -> Value {
        if let [Value::Int(a), Value::Int(b)] = values[..] {
            let int = match op {
                ArithOp::Add => a.checked_add(b),
                ArithOp::Sub => a.checked_sub(b),
                ArithOp::Mul => a.checked_mul(b),
                ArithOp::FloorDiv if b > 0 => Some(a.div_euclid(b)),
                ArithOp::Mod if b > 0 => Some(a.rem_euclid(b)),
                _ => None,
            };
            return int.map_or(Value::Unknown, Value::Int);
        }
        let symbol = match op {
            ArithOp::Add => "+",
            ArithOp::Sub => "-",
            ArithOp::Mul => "*",
            ArithOp::Div => "/",
            ArithOp::FloorDiv => "//",
            ArithOp::Mod => "%",
            ArithOp::Pow => "**",
        };
        self.torch_op(span, &format!("`{symbol}`"), OpClass::Pointwise, &values)
            .unwrap_or_else(|| derived(values))
    }

    pub(super) fn subscript(&mut self, container: Value, key: Value) -> Value {
        match (&container, &key) {
            (Value::Qualified(q), Value::Str(k)) if is_environ(q) => self.read_env(k),
            (Value::Sequence(items), Value::Int(i)) => items.at(*i),
            (Value::Sequence(items), _) => items.iter().cloned().fold(Value::Unknown, Value::join),
            (Value::Cuda(obj), _) => Value::cuda(obj.derived()),
            (Value::Mapping(entries), Value::Str(k)) => entries
                .iter()
                .find(|(key, _)| **key == **k)
                .map_or(Value::Unknown, |(_, v)| v.clone()),
            _ => Value::Unknown,
        }
    }

    /// Reading `os.environ[key]`: a rank variable marks this process as a worker.
    pub(super) fn read_env(&mut self, key: &str) -> Value {
        match libraries::env_role(key) {
            Some(EnvRole::Rank) => {
                self.proc().per_worker = true;
                return Value::Rank;
            }
            Some(EnvRole::GlobalRank) => {
                self.proc().per_worker = true;
                return Value::GlobalRank(libraries::local_rank_of(key));
            }
            _ => {}
        }
        let launched = matches!(
            libraries::env_role(key),
            Some(EnvRole::NarrowsVisibility | EnvRole::LauncherVisibility)
        );
        match self.env_var(key) {
            Some(v) if v == LAUNCH_SELECTION => Value::LaunchVisibility,
            Some(v) => Value::Str(v.as_str().into()),
            None if launched => Value::LaunchVisibility,
            None => Value::Unknown,
        }
    }

    /// The value produced by iterating `iterable` once (and, for a DataLoader, its workers' start).
    pub(super) fn iterate(&mut self, iterable: &Value, span: Span) -> Value {
        match iterable.primary() {
            Value::Sequence(items) => items.iter().cloned().fold(Value::Unknown, Value::join),
            Value::Object(id) => match self.world.object(*id) {
                Some(Object::Loader { .. }) => self.iterate_loader(*id, span),
                _ => Value::Unknown,
            },
            Value::Cuda(obj) => Value::cuda(obj.derived()),
            _ => Value::Unknown,
        }
    }

    /// A name read: a local, a global or a builtin; a CUDA object it holds is used here.
    pub(super) fn eval_name(&mut self, name: &'m str, span: Span) -> Value {
        let found = self.lookup(name);
        if self.proc_ref().spawned {
            let read = found.clone().unwrap_or(Value::Unknown);
            self.global_read(name, span, &read);
        }
        let v = match found {
            Some(v) => v,
            None => self.builtin(name),
        };
        if let Value::Cuda(obj) = &v {
            // A local holding a global's object (`m = get_model()`) uses that global too.
            let global = self.is_global_name(name) || obj.global.is_some();
            self.use_cuda_object(obj, span, name, global);
        }
        v
    }

    /// `value.attr`; a CUDA object read off a value that is not one is used here.
    pub(super) fn eval_attribute(&mut self, value: &'m Expr, attr: &str, span: Span) -> Value {
        let owner = self.eval(value);
        let v = self.attribute(&owner, attr);
        self.state_read(&owner, value, attr, &v, span);
        if let (Value::Cuda(obj), false) = (&v, matches!(owner, Value::Cuda(_))) {
            self.use_cuda_object(obj, span, attr, obj.global.is_some());
        }
        v
    }

    /// An f-string: a device string (`f"cuda:{rank}"`), a rank, an option's name, else unknown.
    pub(super) fn eval_fstring(&mut self, template: &str, parts: &'m [Expr]) -> Value {
        let values: Vec<Value> = parts.iter().map(|p| self.eval(p)).collect();
        if parts.is_empty() {
            Value::Str(template.into())
        } else if template.starts_with("cuda:{}") {
            match values.first() {
                Some(Value::Int(i)) if template == "cuda:{}" => {
                    Value::Str(format!("cuda:{i}").into())
                }
                Some(Value::GlobalRank(local)) if template == "cuda:{}" => {
                    Value::GlobalRank(*local)
                }
                _ => Value::Device(Device::Cuda(DeviceIndex::PerWorker)),
            }
        } else if let ("{}", [Value::GlobalRank(local)]) = (template, &values[..]) {
            Value::GlobalRank(*local)
        } else if values.iter().any(|v| matches!(v, Value::Rank)) && template == "{}" {
            Value::Rank
        } else if template.starts_with("--") {
            // A command-line option (`f"--nnodes={n}"`): its name is known, its value not.
            Value::Str(template.into())
        } else {
            Value::Unknown
        }
    }

    /// A dict display: a mapping when every key is a string.
    pub(super) fn eval_dict(&mut self, items: &'m [(Option<Expr>, Expr)]) -> Value {
        let mut mapping = Some(Vec::new());
        for (k, v) in items {
            let key = k.as_ref().map(|k| self.eval(k));
            let value = self.eval(v);
            match (key, &mut mapping) {
                (Some(Value::Str(key)), Some(entries)) => entries.push((key.to_string(), value)),
                _ => mapping = None,
            }
        }
        mapping.map_or(Value::Unknown, |m| Value::Mapping(Arc::new(m)))
    }

    /// A comprehension: each generator's item assigned once, then the elements.
    pub(super) fn eval_comprehension(
        &mut self,
        generators: &'m [Generator],
        elements: &'m [Expr],
        span: Span,
    ) -> Value {
        self.control.comprehension_depth += 1;
        let value = self.comprehension_value(generators, elements, span);
        self.control.comprehension_depth -= 1;
        value
    }

    fn comprehension_value(
        &mut self,
        generators: &'m [Generator],
        elements: &'m [Expr],
        span: Span,
    ) -> Value {
        for g in generators {
            let iterable = self.eval(&g.iter);
            let item = self.iterate(&iterable, g.iter.span);
            self.assign(&g.target, item, span);
            for c in &g.conditions {
                self.eval(c);
            }
        }
        let mut items: Vec<Value> = elements.iter().map(|e| self.eval(e)).collect();
        // A dict's: its keys are names (`{name: p.cpu() for name, p in ...}`); what it
        // holds, for a device or a save, is its values.
        if let [_, value] = &mut items[..] {
            items = vec![std::mem::take(value)];
        }
        Value::seq(items)
    }
}

/// The value of an expression built from others (arithmetic, slicing): CUDA in, CUDA out.
pub(super) fn derived(values: Vec<Value>) -> Value {
    let (mut rank, mut host) = (false, false);
    for v in values {
        match v {
            Value::Cuda(obj) => return Value::cuda(obj.derived()),
            Value::Rank | Value::GlobalRank(_) => rank = true,
            Value::HostTensor { .. } => host = true,
            _ => {}
        }
    }
    if rank {
        Value::Rank
    } else if host {
        // Arithmetic on a host tensor makes a new one, in ordinary memory.
        Value::host()
    } else {
        Value::Unknown
    }
}
