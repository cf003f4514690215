//! Library rows of processes: start methods and contexts, commands, a process's end.

use gpulint_core::analysis::Analysis;
use gpulint_core::effect::Effect;

use super::super::calls::Args;
use super::super::value::Value;
use super::super::Interp;
use super::*;
use crate::libraries::processes::Layer;
use crate::libraries::{Behaviour, Param};
use crate::source::Span;

impl<'m, A: Analysis> Interp<'m, A> {
    /// A call of a `Behaviour::GetContext` row.
    pub(super) fn get_context(&mut self, args: &Args<'m>, layer: Layer, method: Param) -> Value {
        let start = start_method(args.param(method))
            .unwrap_or_else(|| self.resolve_start(layer, None).method);
        Value::Context(layer, start)
    }

    /// A call of a `Behaviour::FixesStartMethod` row.
    pub(super) fn fixes_start_method(
        &mut self,
        span: Span,
        name: &str,
        reason: &str,
        does: Behaviour,
        args: &Args<'m>,
    ) -> Value {
        let short = short(name);
        let Behaviour::FixesStartMethod {
            layer,
            allow_none,
            creates_objects,
            makes,
            pythons,
        } = does
        else {
            return Value::Unknown;
        };
        let python = self.settings.python;
        if pythons.is_some_and(|(first, last)| python < first || python > last) {
            return Value::None;
        }
        let asks_none = allow_none
            .and_then(|p| args.param(p))
            .is_some_and(|(v, _)| !matches!(v, Value::Bool(false)));
        if asks_none {
            self.control.start_query_seen = true;
        } else {
            self.emit(Effect::StartMethodFixed {
                span,
                context: u32::from(super::super::process::layer_key(layer)),
                what: format!("`{short}()` {reason}").into(),
                creates_objects,
            });
        }
        self.carrier(makes)
    }

    /// A call of a `Behaviour::Waits` row.
    pub(super) fn waits(&mut self, span: Span) -> Value {
        self.emit(Effect::WaitedForOthers { span });
        Value::None
    }

    /// A call of a `Behaviour::SetStartMethod` row.
    pub(super) fn sets_start_method(
        &mut self,
        span: Span,
        args: &Args<'m>,
        layer: Layer,
        method: Param,
        force: Param,
    ) -> Value {
        if let Some(m) = start_method(args.param(method)) {
            let force = args
                .param(force)
                .is_some_and(|(v, _)| !matches!(v, Value::Bool(false)));
            self.set_start_method(span, layer, m, force);
        }
        Value::None
    }

    /// A call of a `Behaviour::RunsCommand` row.
    pub(super) fn runs_command(&mut self, span: Span, args: &Args<'m>, argv: Param) -> Value {
        self.command_run(span, args.param(argv).map(|(v, _)| v));
        Value::Unknown
    }

    /// A call of a `Behaviour::EndsProcess` row.
    pub(super) fn ends_process(&mut self) -> Value {
        self.proc().exited = true;
        Value::Unknown
    }
}
