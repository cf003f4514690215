//! `rank % n`: a global rank reduced by a number (and `"cuda:%d" % rank`, a device string). It is an ordinal of this machine only when `n`
//! is the number of devices on the node; by the size of a parallel group or of the whole job it
//! is still a position in the job, past this machine's GPUs on every node but the first.

use gpulint_core::analysis::Analysis;

use super::value::Value;
use super::Interp;
use crate::model::{ArithOp, Expr, ExprKind};
use crate::source::Span;

/// What the divisor of a rank counts, as far as its spelling tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Divisor {
    /// The devices (or processes) on one node: the remainder is a local rank.
    Node,
    /// Processes across nodes: the job's world, or a parallel group that may span nodes.
    Job,
}

/// How the divisor is spelled: a name's last part, a call's callee (`device_count`), an
/// environment variable's key; through `int(...)`.
fn spelling(expr: &Expr) -> Option<String> {
    match &expr.kind {
        ExprKind::Name(_) | ExprKind::Attribute { .. } => {
            let dotted = expr.dotted()?;
            Some(dotted.rsplit('.').next().unwrap_or(&dotted).to_string())
        }
        ExprKind::Subscript { index, .. } => match &index.kind {
            ExprKind::Str(key) => Some(key.to_string()),
            _ => None,
        },
        ExprKind::Call { func, args, .. } => {
            let callee = func.dotted()?;
            let last = callee.rsplit('.').next().unwrap_or(&callee);
            match (last, args.first()) {
                ("int", Some(arg)) => spelling(arg),
                (
                    "get" | "getenv",
                    Some(Expr {
                        kind: ExprKind::Str(key),
                        ..
                    }),
                ) => Some(key.to_string()),
                _ => Some(last.to_string()),
            }
        }
        _ => None,
    }
}

fn divisor(expr: &Expr) -> Option<Divisor> {
    let text = spelling(expr)?.to_ascii_lowercase();
    let node = ["gpu", "device", "local", "node", "nproc"];
    if node.iter().any(|w| text.contains(w)) {
        return Some(Divisor::Node);
    }
    let group = ["tp", "pp", "dp", "cp", "ep", "sp", "mp"];
    let first = text.split('_').next().unwrap_or("");
    let job = ["world", "parallel", "group"];
    (job.iter().any(|w| text.contains(w)) || group.contains(&first)).then_some(Divisor::Job)
}

impl<'m, A: Analysis> Interp<'m, A> {
    /// `left % right`. A global rank stays one unless the divisor is known to count a node's
    /// devices or is not known at all (a number the user chose: reported nowhere).
    pub(super) fn eval_modulo(&mut self, span: Span, operands: &'m [Expr]) -> Value {
        let values: Vec<Value> = operands.iter().map(|e| self.eval(e)).collect();
        match (&values[..], operands.get(1)) {
            ([Value::GlobalRank(local), _], Some(right))
                if divisor(right) == Some(Divisor::Job) =>
            {
                Value::GlobalRank(*local)
            }
            // `"cuda:%d" % rank`: a device string, as `f"cuda:{rank}"` is.
            ([Value::Str(template), Value::GlobalRank(local)], _) if &**template == "cuda:%d" => {
                Value::GlobalRank(*local)
            }
            _ => self.arith(span, ArithOp::Mod, values),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Span;

    fn name(n: &str) -> Expr {
        Expr {
            kind: ExprKind::Name(n.into()),
            span: Span::default(),
        }
    }

    #[test]
    fn a_node_count_is_told_from_a_group_or_world_size() {
        for n in [
            "ngpus_per_node",
            "local_world_size",
            "num_devices",
            "nproc_per_node",
        ] {
            assert_eq!(divisor(&name(n)), Some(Divisor::Node), "{n}");
        }
        for n in [
            "tp_size",
            "world_size",
            "tensor_parallel_size",
            "group_size",
            "pp",
        ] {
            assert_eq!(divisor(&name(n)), Some(Divisor::Job), "{n}");
        }
        for n in ["n", "k", "step"] {
            assert_eq!(divisor(&name(n)), None, "{n}");
        }
    }
}
