//! `with` statements. A generator made a context manager by `contextlib.contextmanager` runs in
//! two parts around the block: the code before its `yield` on entering, the rest (a `finally`
//! that undoes an environment write, say) on leaving. Run whole at the call, as an ordinary
//! function, its undoing would come before the block it guards.

use crate::libraries::processes::launchers;
use gpulint_core::analysis::Analysis;

use super::interp::Flow;
use super::value::{Device, Value};
use super::Interp;
use crate::model::{Expr, ExprKind, FuncId, Stmt, StmtKind, WithItem, YieldAt};
use crate::source::Span;

impl<'m, A: Analysis> Interp<'m, A> {
    /// Runs `with items: body`.
    pub(super) fn exec_with(
        &mut self,
        items: &'m [WithItem],
        body: &'m [Stmt],
        span: Span,
    ) -> Flow {
        if let Some((first, rest)) = items.split_first() {
            if let Some((id, at, args)) = self.context_generator(&first.context) {
                let (values, kwargs) = (args.values(), args.kw_values());
                return self.run_around_yield(id, at, values, kwargs, |this, entered| {
                    if let Some(target) = &first.target {
                        this.assign(target, entered, span);
                    }
                    this.exec_with(rest, body, span)
                });
            }
        }
        let mut daemon = None;
        let mut device = None;
        for item in items {
            let v = self.eval(&item.context);
            if let Some(span) = self.daemon_context(&item.context, &v) {
                daemon = Some(span);
            }
            if matches!(v, Value::Device(Device::Cuda(_))) {
                device = Some(item.context.span);
            }
            if let Some(target) = &item.target {
                self.assign(target, v, span);
            }
        }
        match (daemon, device) {
            (Some(span), _) => {
                self.run_forked_block(span, &launchers::DAEMON_CONTEXT, body);
                Flow::Normal
            }
            (None, Some(at)) => self.exec_on_default_device(at, body),
            (None, None) => self.exec_block(body),
        }
    }

    /// `with torch.device("cuda"):` (torch 2.0 and later) or MXNet's `with mx.gpu():`: a CUDA
    /// device as a context manager is the default device of what the block allocates.
    fn exec_on_default_device(&mut self, at: Span, body: &'m [Stmt]) -> Flow {
        let before = self.proc_ref().default_cuda;
        if before.is_none() {
            self.proc().default_cuda = Some(at);
        }
        let flow = self.exec_block(body);
        // Unless the block set a default of its own that outlives it.
        if before.is_none() && self.proc_ref().default_cuda == Some(at) {
            self.proc().default_cuda = None;
        }
        flow
    }

    /// `f(args)` where `f` is a module's `@contextmanager` generator whose `yield` can be stopped
    /// at: the function, the place, and the evaluated arguments.
    fn context_generator(
        &mut self,
        context: &'m Expr,
    ) -> Option<(FuncId, YieldAt, super::calls::Args<'m>)> {
        let ExprKind::Call {
            func,
            args,
            keywords,
        } = &context.kind
        else {
            return None;
        };
        // Only a plain or dotted name: evaluating it again on the ordinary path does nothing.
        func.dotted()?;
        let Value::Function(id, None) = self.eval(func) else {
            return None;
        };
        let at = self.func(id).yield_at?;
        if !self.enters_at_yield(id) {
            return None;
        }
        Some((id, at, self.eval_args(args, keywords)))
    }

    /// Calls the generator `id` up to its `yield`, runs `inside` in the caller's frame with the
    /// yielded value, then runs the generator's remaining code; returns how `inside` ended.
    fn run_around_yield(
        &mut self,
        id: FuncId,
        at: YieldAt,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
        inside: impl FnOnce(&mut Self, Value) -> Flow,
    ) -> Flow {
        if self.call_cut(id).is_some() {
            return inside(self, Value::Unknown);
        }
        self.entered.insert(id);
        let body = &self.func(id).body;
        let caller_module = self.push_call_frame(id, None, None, args, &kwargs);
        let outer = self.returned.take();
        let (top, in_try) = match at {
            YieldAt::Top(i) => (i, None),
            YieldAt::InTry { stmt, at } => match &body[stmt].kind {
                StmtKind::Try {
                    body: tried,
                    handlers,
                    orelse,
                    finally,
                } => (stmt, Some((tried, at, handlers, orelse, finally))),
                _ => (stmt, None),
            },
        };
        // A `try` with handlers around the `yield` catches what the block raises, too.
        let caught = u32::from(in_try.is_some_and(|(_, _, handlers, ..)| !handlers.is_empty()));
        self.exec_block(&body[..top]);
        self.control.try_depth += caught;
        let yielded = match in_try {
            Some((tried, at, ..)) => {
                self.exec_block(&tried[..at]);
                &tried[at]
            }
            None => &body[top],
        };
        let entered = match &yielded.kind {
            StmtKind::Expr(Expr {
                kind: ExprKind::Other(parts),
                ..
            }) => parts.first().map_or(Value::None, |e| self.eval(e)),
            _ => Value::Unknown,
        };
        // The block runs in the caller's frame, module and returning paths.
        let frame = self.frames.pop();
        self.cur = caller_module;
        let inner_returned = std::mem::replace(&mut self.returned, outer);
        let flow = inside(self, entered);
        let outer = std::mem::replace(&mut self.returned, inner_returned);
        self.cur = id.file;
        self.frames.extend(frame);
        if let Some((tried, at, handlers, orelse, finally)) = in_try {
            self.exec_block(&tried[at + 1..]);
            self.control.try_depth -= caught;
            for handler in handlers.iter() {
                self.exec_maybe(handler);
            }
            self.exec_block(orelse);
            self.exec_block(finally);
        }
        self.exec_block(&body[top + 1..]);
        self.function_ended(outer);
        self.cur = caller_module;
        self.frames.pop();
        flow
    }
}
