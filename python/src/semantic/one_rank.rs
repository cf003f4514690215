//! Code that runs on one rank only: a branch under a test that compares the rank with a constant
//! (`if dist.get_rank() == 0:`). The other ranks skip it. Effects there carry
//! `Context::one_rank`; the analyses decide what it means.

use super::value::Value;
use crate::model::CmpOp;

fn rank(v: &Value) -> bool {
    matches!(v, Value::Rank | Value::GlobalRank)
}

fn constant(v: &Value) -> bool {
    matches!(v, Value::Int(_))
}

/// `rank == 0` (true on one rank), `rank != 0` (false on one rank), `rank in (-1, 0)` (a rank
/// of several, or the only process): a [`Value::OneRank`]; anything else, `Unknown`.
pub(super) fn compare(left: &Value, ops: &[CmpOp], right: &[Value]) -> Value {
    let ([op], [right]) = (ops, right) else {
        return Value::Unknown;
    };
    let against_constant = rank(left) && constant(right) || constant(left) && rank(right);
    match op {
        CmpOp::Eq if against_constant => Value::OneRank(true),
        CmpOp::NotEq if against_constant => Value::OneRank(false),
        CmpOp::In if rank(left) && constants(right) => Value::OneRank(true),
        CmpOp::NotIn if rank(left) && constants(right) => Value::OneRank(false),
        _ => Value::Unknown,
    }
}

/// A short tuple or list of numbers (`(-1, 0)`): each is one rank at most.
fn constants(v: &Value) -> bool {
    match v {
        Value::Sequence(items) => (1..=2).contains(&items.len()) && items.iter().all(constant),
        _ => false,
    }
}

/// `not (rank == 0)`.
pub(super) fn not(v: Value) -> Value {
    match v {
        Value::OneRank(holds) => Value::OneRank(!holds),
        _ => Value::Unknown,
    }
}

/// `rank == 0 and x` holds on one rank at most; `rank != 0 or x` fails on one rank at most. Any
/// other mix says nothing of the rank: the rank tests in it count as unknown values.
pub(super) fn bool_op(and: bool, values: Vec<Value>) -> Value {
    if values
        .iter()
        .any(|v| matches!(v, Value::OneRank(h) if *h == and))
    {
        return Value::OneRank(and);
    }
    let mut out: Option<Value> = None;
    for v in values {
        let v = match v {
            Value::OneRank(_) => Value::Unknown,
            v => v,
        };
        out = Some(match out {
            // A number on one side only is not known (as joined with `Unknown`).
            None if matches!(v, Value::Int(_)) => Value::Unknown,
            None => v,
            Some(o) => o.join(v),
        });
    }
    out.unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rank_against_a_constant_is_one_rank() {
        let zero = Value::Int(0);
        assert!(matches!(
            compare(
                &Value::GlobalRank,
                &[CmpOp::Eq],
                std::slice::from_ref(&zero)
            ),
            Value::OneRank(true)
        ));
        assert!(matches!(
            compare(&zero, &[CmpOp::NotEq], &[Value::Rank]),
            Value::OneRank(false)
        ));
        assert!(matches!(
            compare(&Value::Rank, &[CmpOp::Lt], std::slice::from_ref(&zero)),
            Value::Unknown
        ));
        assert!(matches!(
            compare(&Value::Rank, &[CmpOp::Eq], &[Value::Rank]),
            Value::Unknown
        ));
        assert!(matches!(not(Value::OneRank(true)), Value::OneRank(false)));
        assert!(matches!(
            bool_op(true, vec![Value::Unknown, Value::OneRank(true)]),
            Value::OneRank(true)
        ));
        assert!(matches!(
            bool_op(false, vec![Value::Unknown, Value::OneRank(true)]),
            Value::Unknown
        ));
    }
}
