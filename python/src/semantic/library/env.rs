//! Library rows that read and write the process environment.

use gpulint_core::analysis::Analysis;

use super::super::calls::Args;
use super::super::value::Value;
use super::super::Interp;
use crate::libraries::Param;
use crate::source::Span;

impl<'m, A: Analysis> Interp<'m, A> {
    /// A call of a `Behaviour::ReadsEnv` row.
    pub(super) fn reads_env(&mut self, args: &Args<'m>, key: Param) -> Value {
        match args
            .param(key)
            .and_then(|(v, _)| v.as_str().map(str::to_string))
        {
            Some(key) => self.read_env(&key),
            None => Value::Unknown,
        }
    }

    /// A call of a `Behaviour::WritesEnv` row.
    pub(super) fn writes_env(
        &mut self,
        span: Span,
        args: &Args<'m>,
        key: Param,
        value: Param,
    ) -> Value {
        if let (Some((Value::Str(k), _)), Some((v, _))) = (args.param(key), args.param(value)) {
            let (k, v) = (k.clone(), v.clone());
            self.write_env(&k, &v, span);
        }
        Value::Unknown
    }

    /// A call of a `Behaviour::RemovesEnv` row.
    pub(super) fn removes_env(&mut self, args: &Args<'m>, key: Param) -> Value {
        if let Some((Value::Str(k), _)) = args.param(key) {
            let k = k.clone();
            std::sync::Arc::make_mut(&mut self.proc().env).remove(&*k);
        }
        Value::Unknown
    }
}
