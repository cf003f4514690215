//! The values the interpreter tracks. Anything else is `Unknown`.

use std::rc::Rc;
use std::sync::Arc;

use gpulint_core::effect::{CudaObject, DeviceIndex};
use gpulint_core::source::{FileId, Span};

#[derive(Clone)]
pub enum Value<'a> {
    Unknown,
    Int(i64),
    Str(Arc<str>),
    /// A library item by its path (a function or a variant), not called yet.
    Item(Arc<str>),
    /// A function of the crate.
    Fn(usize),
    /// A closure, with the file and module its body belongs to.
    Closure(&'a syn::ExprClosure, FileId, usize),
    /// A CUDA context, device, stream, tensor or buffer. `ordinal`: the parameter its device
    /// number came from, when an entry function's caller chooses it.
    Cuda {
        object: CudaObject,
        ordinal: Option<Span>,
    },
    /// A device value naming a CUDA device, with no context yet.
    Device {
        index: DeviceIndex,
        ordinal: Option<Span>,
    },
    /// A number read from a rank variable: across the job (`global`) or on this node.
    Rank {
        global: bool,
    },
    /// An integer parameter of a function run as an entry: a number its callers choose.
    Param(Span),
    /// What a fork at this place returned.
    Pid(Span),
    /// A struct of this crate: its type's path and its fields.
    Struct(Option<Arc<str>>, Rc<Vec<(String, Value<'a>)>>),
    Tuple(Rc<Vec<Value<'a>>>),
    /// A once-cell static (`OnceLock`), by its index among the crate's statics.
    Cell(usize),
    /// A lazy cell's initialiser, not run yet.
    Lazy(Rc<Value<'a>>),
}

impl<'a> Value<'a> {
    /// The value either of two paths may have left: the more telling one.
    pub fn join(self, other: Value<'a>) -> Value<'a> {
        fn rank(v: &Value) -> u8 {
            match v {
                Value::Cuda { .. } => 6,
                Value::Pid(_) => 5,
                Value::Device { .. } => 4,
                Value::Rank { global: true } => 3,
                Value::Param(_) => 2,
                Value::Unknown => 0,
                _ => 1,
            }
        }
        match (rank(&self), rank(&other)) {
            (a, b) if a > b => self,
            (a, b) if b > a => other,
            (1, 1) if !same(&self, &other) => Value::Unknown,
            _ => self,
        }
    }

    pub fn cuda(&self) -> Option<&CudaObject> {
        match self {
            Value::Cuda { object, .. } => Some(object),
            _ => None,
        }
    }

    /// The first CUDA object in this value or what it holds.
    pub fn find_cuda(&self) -> Option<(&CudaObject, Option<Span>)> {
        match self {
            Value::Cuda { object, ordinal } => Some((object, *ordinal)),
            Value::Struct(_, fields) => fields.iter().find_map(|(_, v)| v.find_cuda()),
            Value::Tuple(items) => items.iter().find_map(Value::find_cuda),
            _ => None,
        }
    }

    /// The first CUDA device value (no context yet) in this value or a tuple it is.
    pub fn find_device(&self) -> Option<(DeviceIndex, Option<Span>)> {
        match self {
            Value::Device { index, ordinal } => Some((*index, *ordinal)),
            Value::Tuple(items) => items.iter().find_map(Value::find_device),
            _ => None,
        }
    }
}

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Str(x), Value::Str(y)) | (Value::Item(x), Value::Item(y)) => x == y,
        (Value::Fn(x), Value::Fn(y)) | (Value::Cell(x), Value::Cell(y)) => x == y,
        (Value::Closure(x, ..), Value::Closure(y, ..)) => std::ptr::eq(*x, *y),
        (Value::Rank { global: x }, Value::Rank { global: y }) => x == y,
        _ => false,
    }
}
