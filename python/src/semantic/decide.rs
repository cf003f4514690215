//! Tests whose outcome the values known here decide (`if num_proc is None:` where the caller left
//! the default; `elif num_proc != -1 and num_proc <= 1 or ...` after it set 1): only the branch
//! that runs is analysed. A test decides only through constants and locals whose value is exact
//! (`Frame::exact`: a literal default the caller left, or a literal assigned, on every path), read
//! again here without effects, and calls a row answers for the host the rules describe (vLLM's
//! `current_platform.is_rocm()`). Anything else (a global, an attribute, another call) leaves both
//! branches to run, as before.

use gpulint_core::analysis::Analysis;

use super::one_rank::{known_compare, truth};
use super::value::{Name, Value};
use super::Interp;
use crate::model::{Expr, ExprKind};

impl<'m, A: Analysis> Interp<'m, A> {
    /// Whether the test surely holds (`Some(true)`) or surely fails, from what is known here.
    pub(super) fn decide(&mut self, test: &'m Expr) -> Option<bool> {
        match &test.kind {
            // `and` fails if any part fails and holds if all hold; `or` the other way round.
            ExprKind::BoolOp { and, values } => {
                let mut all = true;
                for v in values {
                    match self.decide(v) {
                        Some(t) if t != *and => return Some(t),
                        Some(_) => {}
                        None => all = false,
                    }
                }
                all.then_some(*and)
            }
            ExprKind::Not(inner) => self.decide(inner).map(|t| !t),
            ExprKind::Compare {
                left,
                ops,
                comparators,
            } => match (ops.as_slice(), comparators.as_slice()) {
                ([op], [right]) if self.readable(left) && self.readable(right) => {
                    let (l, r) = (self.read(left), self.read(right));
                    known_compare(&l, *op, &r)
                }
                _ => None,
            },
            // A call an `Answers` row answered while the test was evaluated.
            ExprKind::Call { .. } => self
                .answered
                .iter()
                .find(|(span, _)| *span == test.span)
                .map(|(_, answer)| *answer),
            _ if self.readable(test) => truth(&self.read(test)),
            _ => None,
        }
    }

    /// A constant, or a local whose value is exact here.
    fn readable(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Name(name) => self.exact(name).is_some(),
            _ => is_literal(e),
        }
    }

    fn exact(&self, name: &str) -> Option<&Value> {
        let frame = self.frames.last()?;
        frame.exact.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// `x = <literal>` (or `x = y = <literal>`) in straight-line code: `x` is exact.
    pub(super) fn assigned_literal(&mut self, targets: &[Expr], value: &Value) {
        let Some(frame) = self.frames.last_mut() else {
            return;
        };
        for t in targets {
            if let ExprKind::Name(name) = &t.kind {
                if !frame.declared_global.contains(&**name) {
                    frame.forget_exact(name);
                    // Bounded: every write and snapshot walks or copies it (a function of
                    // thousands of assignments must stay linear); the oldest go first.
                    if frame.exact.len() >= MAX_EXACT {
                        frame.exact.remove(0);
                    }
                    frame.exact.push((Name::from(&**name), value.clone()));
                }
            }
        }
    }

    /// A write the interpreter does not model (`x += 1`): `x` is no longer exact.
    pub(super) fn forget_exact(&mut self, name: &str) {
        if let Some(frame) = self.frames.last_mut() {
            frame.forget_exact(name);
        }
    }

    /// The value of a readable expression, read again without effects.
    fn read(&mut self, e: &'m Expr) -> Value {
        match &e.kind {
            ExprKind::Int(i) => Value::Int(*i),
            ExprKind::Str(s) => Value::Str(s.clone()),
            ExprKind::Bool(b) => Value::Bool(*b),
            ExprKind::NoneLiteral => Value::None,
            ExprKind::Name(name) => self.exact(name).cloned().unwrap_or_default(),
            _ => Value::Unknown,
        }
    }
}

impl super::Frame {
    /// `name` is no longer known to hold one literal on every path.
    pub(super) fn forget_exact(&mut self, name: &str) {
        self.exact.retain(|(n, _)| n != name);
    }
}

/// How many exact locals a frame keeps.
pub(super) const MAX_EXACT: usize = 16;

/// A literal constant: a number (negative ones in comparisons), a short string, a bool, `None`.
pub(super) fn is_literal(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::Int(_) | ExprKind::Str(_) | ExprKind::Bool(_) | ExprKind::NoneLiteral
    )
}
