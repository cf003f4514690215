//! Operations on host tensors by the class torch's own metadata gives them
//! (`libraries::torch_ops`): whether one starts the intra-op thread pool depends on the class and
//! on the elements the analysis knows the tensors hold.

use gpulint_core::analysis::Analysis;
use gpulint_core::effect::Effect;

use super::super::calls::Args;
use super::super::value::Value;
use super::super::Interp;
use crate::libraries::torch_ops::{self, OpClass, GRAIN_SIZE};
use crate::libraries::Param;
use crate::source::Span;

impl<'m, A: Analysis> Interp<'m, A> {
    /// A torch operator of `class` on `operands`. `None` where no operand is a host tensor, or
    /// one is on CUDA: the caller goes on as for any other call.
    pub(in super::super) fn torch_op(
        &mut self,
        span: Span,
        op: &str,
        class: OpClass,
        operands: &[Value],
    ) -> Option<Value> {
        let on_host = |v: &Value| matches!(v, Value::HostTensor { .. });
        if operands.iter().any(|v| matches!(v, Value::Cuda(_))) || !operands.iter().any(on_host) {
            return None;
        }
        // The largest operand: what a pointwise result holds at least, and what a reduction
        // or a copy splits.
        let work = operands.iter().map(Value::numel).max().unwrap_or(0);
        Some(match class {
            OpClass::Blas => return self.host_compute(span, op, operands),
            OpClass::Pointwise | OpClass::Fill => {
                self.sized_compute(span, op, work);
                Value::host_of(work)
            }
            OpClass::Sized => {
                self.sized_compute(span, op, work);
                Value::host()
            }
            OpClass::SameView => Value::host_of(operands[0].numel()),
            OpClass::View | OpClass::Random | OpClass::Setter => Value::host(),
            OpClass::Query => Value::Unknown,
            OpClass::Factory => return None,
        })
    }

    /// A call of `torch.X` that has no row of its own, by its class in the table.
    pub(in super::super) fn torch_function(
        &mut self,
        span: Span,
        name: &str,
        args: &Args<'m>,
    ) -> Option<Value> {
        let class = torch_ops::function(name)?;
        let operands: Vec<Value> = args
            .pos
            .iter()
            .map(|(v, _)| v.clone())
            .chain(args.kw.iter().map(|(_, v, _)| v.clone()))
            .collect();
        self.torch_op(span, &quoted(name), class, &operands)
    }

    /// A tensor method that has no row of its own, on a host tensor, by its class in the table.
    pub(in super::super) fn tensor_method(
        &mut self,
        span: Span,
        recv: &Value,
        method: &str,
        args: &Args<'m>,
    ) -> Option<Value> {
        if !matches!(recv, Value::HostTensor { .. }) {
            return None;
        }
        let class = torch_ops::method(method)?;
        let operands: Vec<Value> = std::iter::once(recv.clone())
            .chain(args.pos.iter().map(|(v, _)| v.clone()))
            .chain(args.kw.iter().map(|(_, v, _)| v.clone()))
            .collect();
        self.torch_op(span, &format!("`.{method}()`"), class, &operands)
    }

    /// An operation whose work torch splits across its pool only above the grain size: it
    /// starts the pool when the tensors are known to be larger.
    fn sized_compute(&mut self, span: Span, op: &str, numel: u32) {
        if numel > GRAIN_SIZE {
            self.emit(Effect::HostCompute {
                span,
                what: format!(
                    "{op} runs over {numel} elements of host tensors, more than torch's grain size \
                     ({GRAIN_SIZE}), split across its intra-op thread pool (OpenMP)"
                )
                .into(),
            });
        }
    }

    /// A factory's host tensor of `numel` elements: one that writes every element (by the
    /// table) starts the pool above the grain size.
    pub(in super::super) fn host_factory(&mut self, span: Span, name: &str, numel: u32) {
        if torch_ops::function(name) == Some(OpClass::Fill) {
            self.sized_compute(span, &quoted(name), numel);
        }
    }
}

/// An operator as messages quote it (`linalg.solve`).
fn quoted(name: &str) -> String {
    format!("`{}`", torch_ops::shown(name))
}

/// The elements a factory's result holds, from its size (`torch.zeros(3, 4)`,
/// `torch.full((3, 4), x)`, `size=`) or the tensor whose shape it copies (`zeros_like(x)`); 0
/// when not known.
pub(super) fn factory_numel(args: &Args, size: Option<Param>) -> u32 {
    let Some(size) = size else { return 0 };
    match args.param(size) {
        Some((v @ Value::HostTensor { .. }, _)) => v.numel(),
        Some((Value::Sequence(dims), _)) => product(dims.iter()),
        // `*size`: the integers from there on.
        Some((Value::Int(_), _)) => product(
            args.pos
                .iter()
                .skip(size.index.unwrap_or(0))
                .map(|(v, _)| v)
                .take_while(|v| matches!(v, Value::Int(_))),
        ),
        _ => 0,
    }
}

/// The product of sizes that are all known integers, capped; 0 when one is not.
fn product<'a>(dims: impl Iterator<Item = &'a Value>) -> u32 {
    let mut numel: u64 = 1;
    let mut any = false;
    for d in dims {
        match d {
            Value::Int(n) if *n > 0 => numel = numel.saturating_mul(*n as u64),
            _ => return 0,
        }
        any = true;
    }
    if any {
        numel.min(u32::MAX as u64) as u32
    } else {
        0
    }
}

impl<'m, A: Analysis> Interp<'m, A> {
    /// A `torch.nn` layer built in host memory, with the elements of its weight where its
    /// arguments say them.
    pub(in super::super) fn host_layer(&mut self, name: &str, args: &Args<'m>) -> Value {
        let ints: Vec<Option<i64>> = args
            .pos
            .iter()
            .map(|(v, _)| match v {
                Value::Int(n) => Some(*n),
                _ => None,
            })
            .collect();
        let numel = crate::libraries::torch::layer_weight(name, &ints);
        Value::host_layer(numel.min(u32::MAX as u64) as u32)
    }

    /// `model.load_state_dict(sd)` on a model in host memory: one copy per parameter, which
    /// splits across the pool for a parameter larger than the grain size. `None` elsewhere.
    pub(in super::super) fn loads_state(
        &mut self,
        span: Span,
        recv: &Value,
        method: &str,
    ) -> Option<Value> {
        let largest = self.largest_parameter(recv, 3)?;
        self.sized_compute(span, &format!("`.{method}()`"), largest);
        Some(Value::Unknown)
    }

    /// `model.parameters()` on a module in host memory: host tensors, the largest as large as its
    /// largest weight (an operation on each reaches that one); `Unknown` for anything else.
    pub(in super::super) fn host_parameters(&self, recv: &Value) -> Value {
        match self.largest_parameter(recv, 3) {
            Some(numel) => Value::seq(vec![Value::host_of(numel)]),
            None => Value::Unknown,
        }
    }

    /// An instance of a project's class that defines no `__call__` (a library base's, such as
    /// `nn.Module`'s, runs) and keeps `torch.nn` layers in host memory.
    pub(in super::super) fn holds_host_layers(&self, value: &Value) -> bool {
        match self.object(value) {
            Some(super::super::Object::Instance { class, .. }) => {
                self.find_method(*class, "__call__").is_none()
                    && self.largest_parameter(value, 3).is_some()
            }
            _ => false,
        }
    }

    /// The elements of the largest weight a module holds in host memory (a layer, or the layers a
    /// project's module keeps as attributes, `depth` levels down); `None` when it holds none.
    fn largest_parameter(&self, value: &Value, depth: u8) -> Option<u32> {
        match value {
            Value::HostTensor {
                numel, layer: true, ..
            } => Some(*numel),
            Value::Sequence(items) if depth > 0 => items
                .iter()
                .filter_map(|v| self.largest_parameter(v, depth - 1))
                .max(),
            _ if depth > 0 => match self.object(value) {
                Some(super::super::Object::Instance { attrs, .. }) => attrs
                    .values()
                    .filter_map(|v| self.largest_parameter(v, depth - 1))
                    .max(),
                _ => None,
            },
            _ => None,
        }
    }
}
