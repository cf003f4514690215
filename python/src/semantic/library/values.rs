//! Library rows that compute a value: answers and conversions.

use gpulint_core::analysis::Analysis;

use super::super::calls::Args;
use super::super::value::Value;
use super::super::Interp;
use crate::source::Span;

impl<'m, A: Analysis> Interp<'m, A> {
    /// A call of a `Behaviour::Answers` row.
    pub(super) fn answers(&mut self, span: Span, answer: bool) -> Value {
        self.answered.push((span, answer));
        Value::Bool(answer)
    }

    /// A call of a `Behaviour::Converts` row.
    pub(super) fn converts(&mut self, args: &Args<'m>, to_int: bool) -> Value {
        match args.pos.first() {
            Some((Value::Rank, _)) => Value::Rank,
            Some((Value::GlobalRank(local), _)) => Value::GlobalRank(*local),
            Some((Value::Int(i), _)) if to_int => Value::Int(*i),
            Some((Value::Str(s), _)) if to_int => s.parse().map_or(Value::Unknown, Value::Int),
            Some((Value::Int(i), _)) => Value::Str(i.to_string().into()),
            Some((Value::Str(s), _)) => Value::Str(s.clone()),
            _ => Value::Unknown,
        }
    }
}
