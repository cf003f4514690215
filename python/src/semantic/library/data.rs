//! Library rows of data: datasets, partials and compositions, iteration, what pickle refuses.

use gpulint_core::analysis::Analysis;

use super::super::calls::Args;
use super::super::value::Value;
use super::super::{Interp, Object};
use crate::libraries::Param;
use crate::source::Span;

impl<'m, A: Analysis> Interp<'m, A> {
    /// A call of a `Behaviour::LibraryDataset` row.
    pub(super) fn library_dataset(
        &mut self,
        args: &Args<'m>,
        transforms: &'static [&'static str],
    ) -> Value {
        let transforms = transforms
            .iter()
            .filter_map(|k| args.kw(k).map(|(v, _)| v.clone()))
            .collect();
        self.alloc(Object::LibraryDataset { transforms })
    }

    /// A call of a `Behaviour::DictOfKeywords` row.
    pub(super) fn dict_of_keywords(&mut self, args: &Args<'m>) -> Option<Value> {
        if !args.pos.is_empty() {
            return None;
        }
        Some(Value::Mapping(std::sync::Arc::new(args.kw_values())))
    }

    /// A call of a `Behaviour::Partial` row.
    pub(super) fn partial(&mut self, args: &Args<'m>) -> Value {
        let mut values = args.values().into_iter();
        let func = values.next().unwrap_or_default();
        self.alloc(Object::Partial {
            func,
            args: values.collect(),
        })
    }

    /// A call of a `Behaviour::Compose` row.
    pub(super) fn compose(&mut self, args: &Args<'m>, steps: Param) -> Value {
        let steps = match args.param(steps) {
            Some((Value::Sequence(items), _)) => items.to_vec(),
            _ => Vec::new(),
        };
        self.alloc(Object::Compose(steps))
    }

    /// A call of a `Behaviour::Unpicklable` row.
    pub(super) fn unpicklable(&mut self, span: Span, name: &str) -> Value {
        self.alloc(Object::Unpicklable {
            span,
            what: format!("`{name}()`"),
        })
    }

    /// A call of a `Behaviour::CallsArgument` row.
    pub(super) fn calls_argument(&mut self, args: &Args<'m>, param: Param) -> Value {
        match args.param(param) {
            Some((f, _)) => {
                let f = f.clone();
                self.call_plain(&f, Vec::new())
            }
            None => Value::Unknown,
        }
    }
}
