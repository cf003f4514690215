//! Code that runs on one rank only: a branch under a test that compares the rank with a constant
//! (`if dist.get_rank() == 0:`). The other ranks skip it. Effects there carry
//! `Context::one_rank`; the analyses decide what it means.

use super::value::Value;
use crate::model::CmpOp;

fn rank(v: &Value) -> bool {
    matches!(v, Value::Rank | Value::GlobalRank(_))
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
        _ => known_compare(left, *op, right).map_or(Value::Unknown, Value::Bool),
    }
}

/// A comparison of values known here (`num_proc is None`, `world_size > 1` with a bound constant).
pub(super) fn known_compare(left: &Value, op: CmpOp, right: &Value) -> Option<bool> {
    use std::cmp::Ordering;
    let order = match (left, right) {
        (Value::Int(a), Value::Int(b)) => Some(a.cmp(b)),
        _ => None,
    };
    let equal = match (left, right) {
        (Value::Str(a), Value::Str(b)) => Some(a == b),
        (Value::Bool(a), Value::Bool(b)) => Some(a == b),
        (Value::None, Value::None) => Some(true),
        (Value::None, other) | (other, Value::None) if plain(other) => Some(false),
        _ => order.map(Ordering::is_eq),
    };
    match op {
        CmpOp::Eq | CmpOp::Is => equal,
        CmpOp::NotEq | CmpOp::IsNot => equal.map(|e| !e),
        CmpOp::Lt => order.map(Ordering::is_lt),
        CmpOp::LtE => order.map(Ordering::is_le),
        CmpOp::Gt => order.map(Ordering::is_gt),
        CmpOp::GtE => order.map(Ordering::is_ge),
        _ => None,
    }
}

/// A value that is surely not `None`: a constant or a literal container.
fn plain(v: &Value) -> bool {
    matches!(
        v,
        Value::Int(_) | Value::Str(_) | Value::Bool(_) | Value::Sequence(_) | Value::Mapping(_)
    )
}

/// Whether a value is true in a test, where it is known (`None`, a constant).
pub(super) fn truth(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        Value::None => Some(false),
        Value::Int(i) => Some(*i != 0),
        Value::Str(s) => Some(!s.is_empty()),
        _ => None,
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
    fn constants_compare_as_python_does() {
        let cmp = |l: Value, op, r: Value| match compare(&l, &[op], &[r]) {
            Value::Bool(b) => Some(b),
            _ => None,
        };
        assert_eq!(cmp(Value::None, CmpOp::Is, Value::None), Some(true));
        assert_eq!(cmp(Value::Int(1), CmpOp::IsNot, Value::None), Some(true));
        assert_eq!(cmp(Value::Int(1), CmpOp::NotEq, Value::Int(-1)), Some(true));
        assert_eq!(cmp(Value::Int(1), CmpOp::LtE, Value::Int(1)), Some(true));
        assert_eq!(cmp(Value::Int(2), CmpOp::Lt, Value::Int(1)), Some(false));
        assert_eq!(
            cmp(Value::Str("a".into()), CmpOp::Eq, Value::Str("b".into())),
            Some(false)
        );
        // Nothing is decided about a value not known here.
        assert_eq!(cmp(Value::Unknown, CmpOp::Is, Value::None), None);
        assert_eq!(
            cmp(Value::Str("a".into()), CmpOp::Lt, Value::Str("b".into())),
            None
        );
        assert_eq!(truth(&Value::Unknown), None);
        assert_eq!(truth(&Value::Int(0)), Some(false));
    }

    #[test]
    fn a_rank_against_a_constant_is_one_rank() {
        let zero = Value::Int(0);
        assert!(matches!(
            compare(
                &Value::GlobalRank(None),
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
