//! torch's operators as torch's own metadata lists them: `torch_ops.tsv`, written by
//! `scripts/torch_ops.py` from `native_functions.yaml` (its first line names the torch version and
//! commit). Each Python-visible operator (`torch.X`, `torch.linalg.X`, `torch.special.X`, the
//! tensor method `.X`) has a class that says whether it runs on the intra-op thread pool when its
//! operands are host tensors.

use std::sync::OnceLock;

/// `at::internal::GRAIN_SIZE`: ATen's `parallel_for` and TensorIterator split work across threads
/// only when it has more elements than this (`ATen/TensorIterator.h`, torch 2.11.0).
pub const GRAIN_SIZE: u32 = 32768;

/// How an operator uses the intra-op thread pool on host tensors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpClass {
    /// BLAS/LAPACK or oneDNN: threads at any size.
    Blas,
    /// Element by element over the broadcast shape: threads above the grain size.
    Pointwise,
    /// Any other operator on tensors (reductions, copies, indexing): threads above the grain size
    /// of its largest input.
    Sized,
    /// A factory that writes every element it allocates: threads above the grain size.
    Fill,
    /// A view that keeps the number of elements (`view`, `t`, `contiguous`).
    SameView,
    /// A view of part of its input, or of another shape: no data moves.
    View,
    /// Random sampling: one generator, drawn from serially.
    Random,
    /// Metadata set in place (`resize_`, `requires_grad_`): no arithmetic.
    Setter,
    /// No tensor in its result (`bool`, `int`, `Scalar`).
    Query,
    /// No tensor among its arguments: its own rows decide.
    Factory,
}

impl OpClass {
    fn parse(word: &str) -> Option<OpClass> {
        Some(match word {
            "blas" => OpClass::Blas,
            "pointwise" => OpClass::Pointwise,
            "sized" => OpClass::Sized,
            "fill" => OpClass::Fill,
            "sameview" => OpClass::SameView,
            "view" => OpClass::View,
            "random" => OpClass::Random,
            "setter" => OpClass::Setter,
            "query" => OpClass::Query,
            "factory" => OpClass::Factory,
            _ => return None,
        })
    }
}

const TABLE: &str = include_str!("torch_ops.tsv");

/// The rows, as the generator sorted them: (name, is a method, class).
pub fn rows() -> &'static [(&'static str, bool, OpClass)] {
    static ROWS: OnceLock<Vec<(&'static str, bool, OpClass)>> = OnceLock::new();
    ROWS.get_or_init(|| {
        TABLE
            .lines()
            .filter(|line| !line.starts_with('#'))
            .filter_map(|line| {
                let mut cols = line.split('\t');
                let (name, variant, class) = (cols.next()?, cols.next()?, cols.next()?);
                Some((name, variant == "method", OpClass::parse(class)?))
            })
            .collect()
    })
}

fn find(name: &str, method: bool) -> Option<OpClass> {
    let rows = rows();
    let i = rows
        .binary_search_by(|(n, m, _)| (*n, *m).cmp(&(name, method)))
        .ok()?;
    Some(rows[i].2)
}

/// The class of `torch.X` (also `torch.linalg.X`, `torch.special.X`), by qualified name.
pub fn function(qualified: &str) -> Option<OpClass> {
    find(qualified.strip_prefix("torch.")?, false)
}

/// A function's name as messages show it: without the `torch.` in front (`linalg.solve`).
pub fn shown(qualified: &str) -> &str {
    qualified.strip_prefix("torch.").unwrap_or(qualified)
}

/// The class of the tensor method `.X`.
pub fn method(name: &str) -> Option<OpClass> {
    find(name, true)
}

/// The torch version and commit the table was generated from.
pub fn source() -> &'static str {
    TABLE
        .lines()
        .next()
        .unwrap_or_default()
        .trim_start_matches("# ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_parses_and_the_rows_are_sorted() {
        let data = TABLE.lines().filter(|l| !l.starts_with('#')).count();
        assert_eq!(rows().len(), data, "a row with an unknown class");
        assert!(rows()
            .windows(2)
            .all(|w| (w[0].0, w[0].1) < (w[1].0, w[1].1)));
        assert!(source().starts_with("torch 2.11.0"), "{}", source());
    }

    #[test]
    fn classes_follow_the_metadata() {
        assert_eq!(function("torch.mm"), Some(OpClass::Blas));
        assert_eq!(function("torch.linalg.solve"), Some(OpClass::Blas));
        assert_eq!(function("torch.add"), Some(OpClass::Pointwise));
        assert_eq!(method("sigmoid"), Some(OpClass::Pointwise));
        assert_eq!(method("sum"), Some(OpClass::Sized));
        assert_eq!(method("copy_"), Some(OpClass::Sized));
        assert_eq!(function("torch.zeros"), Some(OpClass::Fill));
        assert_eq!(function("torch.randn"), Some(OpClass::Random));
        assert_eq!(method("view"), Some(OpClass::SameView));
        assert_eq!(method("narrow"), Some(OpClass::View));
        assert_eq!(method("item"), Some(OpClass::Query));
        assert_eq!(method("requires_grad_"), Some(OpClass::Setter));
        assert_eq!(function("torch.nn.functional.relu"), None);
        assert_eq!(function("torch.mm.extra"), None);
    }
}
