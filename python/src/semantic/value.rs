//! Abstract values: what the interpreter knows about a Python value, as far as a verdict needs.

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

pub use gpulint_core::effect::{CudaObject, DeviceIndex};

use crate::libraries::processes::{Layer, StartMethod};
use crate::model::{ClassId, FuncId};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Device {
    Cpu,
    Cuda(DeviceIndex),
    /// `mps`, `meta`, `xpu`...: not CUDA.
    Other,
}

impl Device {
    /// Parses a device string such as `cuda:1` or `cpu`.
    pub fn parse(text: &str) -> Option<Device> {
        let text = text.trim();
        let (kind, index) = match text.split_once(':') {
            Some((kind, index)) => (kind, Some(index)),
            None => (text, None),
        };
        match kind {
            "cuda" | "gpu" => Some(Device::Cuda(match index {
                None => DeviceIndex::Current,
                Some(i) => i.parse().map_or(DeviceIndex::PerWorker, DeviceIndex::Fixed),
            })),
            "cpu" => Some(Device::Cpu),
            "mps" | "meta" | "xpu" | "hpu" | "xla" | "npu" => Some(Device::Other),
            _ => None,
        }
    }

    pub fn cuda_index(self) -> Option<DeviceIndex> {
        match self {
            Device::Cuda(i) => Some(i),
            _ => None,
        }
    }
}

/// An object with identity: its heap segment and its index there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ObjId {
    pub segment: u32,
    pub index: u32,
}

/// A binding's name in a scope, an instance or a class (inline when short, as most are).
pub type Name = compact_str::CompactString;

/// Names captured by a closure when it was defined.
pub type Captures = Arc<HashMap<Name, Value>>;

#[derive(Clone, Debug, Default)]
pub enum Value {
    #[default]
    Unknown,
    Str(Arc<str>),
    Int(i64),
    Bool(bool),
    None,
    /// An integer that differs per worker: a rank, a `LOCAL_RANK`, a worker index.
    Rank,
    /// The rank across every node of the job (`RANK`, `get_rank()`), or a device string built
    /// from it: as a device ordinal, valid on the first node only. Arithmetic on it
    /// (`% torch.cuda.device_count()`) makes it a plain [`Value::Rank`]. It carries the variable
    /// the same launcher sets to the rank on this node, where one is known.
    GlobalRank(Option<&'static str>),
    /// A test of the rank against a constant (`rank == 0`): `true` holds on one rank only;
    /// `false` (`rank != 0`) fails on one rank only.
    OneRank(bool),
    Device(Device),
    /// A module or library object, by qualified name (`torch.cuda`, `multiprocessing.Pool`).
    Qualified(Arc<str>),
    /// One of the program's own modules.
    Module(crate::program::NodeId),
    Function(FuncId, Option<Captures>),
    BoundMethod(FuncId, Box<Value>),
    Class(ClassId),
    Object(ObjId),
    /// Boxed: the largest variant, it would otherwise make every value 72 bytes.
    Cuda(Box<CudaObject>),
    /// A tensor in host memory; `pinned`: copied into pinned memory there (`x.pin_memory()`), which
    /// only the CUDA host allocator can free; `numel`: the elements it is known to hold at least
    /// (0: not known), which decides whether an operation on it splits across threads; `layer`: a
    /// `torch.nn` layer (its weight's elements), whose call is a forward pass.
    HostTensor {
        // Boxed: pinned tensors are rare, and an inline span would make every value a word larger.
        pinned: Option<Box<crate::source::Span>>,
        numel: u32,
        layer: bool,
    },
    /// A tuple or list.
    Sequence(Items),
    /// A dict with string keys (`dict(num_workers=4)`, `{"num_workers": 4}`), for `**kwargs`.
    /// Shared: a global dict of settings is read (and so copied) far more often than built.
    Mapping(Arc<Vec<(String, Value)>>),
    /// A process subgroup on a CPU backend: collectives on it touch no GPU.
    CpuGroup,
    /// A multiprocessing context from `get_context(method)`.
    Context(Layer, StartMethod),
    /// A GPU selection the process was launched with, read from the environment (its text
    /// unknown): written back to the CUDA variable, it selects no new GPUs.
    LaunchVisibility,
    /// Different objects or functions that paths or list items may hold (`transform or default()`,
    /// `for step in steps: x = step(x)`): a call calls each; anything else reads the first.
    OneOf(Vec<Value>),
}

/// How many alternatives a [`Value::OneOf`] keeps.
const MAX_ALTERNATIVES: usize = 8;
/// How many items a tuple or list keeps; the rest are joined into the last.
const MAX_ITEMS: usize = 64;
/// How many values a tuple or list holds in all, nested ones counted: past it, nested sequences
/// are widened to `Unknown`. Bounds the work of every copy, join and walk of a value.
const MAX_NODES: usize = 256;

/// The items of a tuple or list: shared (reading a global list does not copy it) and bounded in
/// length and total size, so that `x = (x, x)` or `xs.append(xs)` in a loop cannot grow without end.
#[derive(Clone, Debug, Default)]
pub struct Items {
    items: Arc<Vec<Value>>,
    nodes: usize,
}

impl Items {
    pub fn new(mut items: Vec<Value>) -> Items {
        if items.len() > MAX_ITEMS {
            let rest = items.split_off(MAX_ITEMS - 1);
            items.push(rest.into_iter().fold(Value::Unknown, Value::join));
        }
        let mut nodes = 1;
        for item in &mut items {
            if nodes + item.nodes() > MAX_NODES {
                *item = Value::Unknown;
            }
            nodes += item.nodes();
        }
        Items {
            items: Arc::new(items),
            nodes,
        }
    }

    /// The item at `index` (negative from the end); past the kept items, the joined rest.
    pub fn at(&self, index: i64) -> Value {
        let len = self.items.len() as i64;
        let i = if index < 0 { len + index } else { index };
        if i < 0 {
            return Value::Unknown;
        }
        match self.items.get(i as usize) {
            Some(v) => v.clone(),
            None if len as usize == MAX_ITEMS => self.items.last().cloned().unwrap_or_default(),
            None => Value::Unknown,
        }
    }

    fn same(&self, other: &Items) -> bool {
        Arc::ptr_eq(&self.items, &other.items)
    }
}

impl std::ops::Deref for Items {
    type Target = [Value];
    fn deref(&self) -> &[Value] {
        &self.items
    }
}

/// A mapping with `more` set over `entries` (a later key replaces an earlier one).
pub fn with_entries(
    entries: &[(String, Value)],
    more: impl IntoIterator<Item = (String, Value)>,
) -> Value {
    let mut out = entries.to_vec();
    for (k, v) in more {
        match out.iter_mut().find(|(key, _)| *key == k) {
            Some(entry) => entry.1 = v,
            None => out.push((k, v)),
        }
    }
    Value::Mapping(std::sync::Arc::new(out))
}

impl Value {
    /// A tuple or list of these items (bounded: see [`Items`]).
    pub fn seq(items: Vec<Value>) -> Value {
        Value::Sequence(Items::new(items))
    }

    /// A host tensor of a size not known.
    pub fn host() -> Value {
        Value::host_of(0)
    }

    /// A host tensor known to hold at least `numel` elements.
    pub fn host_of(numel: u32) -> Value {
        Value::HostTensor {
            pinned: None,
            numel,
            layer: false,
        }
    }

    /// A `torch.nn` layer in host memory whose weight holds at least `numel` elements.
    pub fn host_layer(numel: u32) -> Value {
        Value::HostTensor {
            pinned: None,
            numel,
            layer: true,
        }
    }

    /// The elements a host tensor is known to hold at least (0 for anything else).
    pub fn numel(&self) -> u32 {
        match self {
            Value::HostTensor { numel, .. } => *numel,
            _ => 0,
        }
    }

    /// A CUDA object as a value (boxed: see [`Value::Cuda`]).
    pub fn cuda(object: CudaObject) -> Value {
        Value::Cuda(Box::new(object))
    }

    /// A method bound to `receiver`; a receiver past the size bound is kept as its first
    /// alternative.
    pub fn bound_method(method: FuncId, receiver: Value) -> Value {
        let receiver = if receiver.nodes() > MAX_NODES {
            receiver.primary().clone()
        } else {
            receiver
        };
        let receiver = if receiver.nodes() > MAX_NODES {
            Value::Unknown
        } else {
            receiver
        };
        Value::BoundMethod(method, Box::new(receiver))
    }

    /// How many values this one holds, itself included (shared captures and heap objects count
    /// once: they are not copied with it).
    fn nodes(&self) -> usize {
        match self {
            Value::Sequence(items) => items.nodes,
            Value::Mapping(entries) => 1 + entries.iter().map(|(_, v)| v.nodes()).sum::<usize>(),
            Value::OneOf(items) => items.iter().map(Value::nodes).sum(),
            Value::BoundMethod(_, receiver) => 1 + receiver.nodes(),
            _ => 1,
        }
    }

    /// The value that stands for all alternatives where only one can be followed.
    pub fn primary(&self) -> &Value {
        match self {
            Value::OneOf(items) => items.first().unwrap_or(&Value::Unknown),
            other => other,
        }
    }

    fn alternatives(self) -> Vec<Value> {
        match self {
            Value::OneOf(items) => items,
            other => vec![other],
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The device this value names, if it names one.
    pub fn device(&self) -> Option<Device> {
        match self {
            Value::Str(s) => Device::parse(s),
            Value::Int(i) => Some(Device::Cuda(DeviceIndex::Fixed(*i))),
            Value::Rank | Value::GlobalRank(_) => Some(Device::Cuda(DeviceIndex::PerWorker)),
            Value::Device(d) => Some(*d),
            Value::Cuda(obj) => Some(Device::Cuda(obj.index)),
            _ => None,
        }
    }

    /// Whether joining `other` into this value leaves it as it is (a cheap test: `false` where
    /// it cannot tell), so a join of two paths can skip the bindings neither path changed.
    pub fn absorbs(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Cuda(_), _) | (Value::Unknown, Value::Unknown) => true,
            (Value::Sequence(a), Value::Sequence(b)) => a.same(b),
            (Value::Mapping(a), Value::Mapping(b)) => Arc::ptr_eq(a, b),
            (a, b) => same(a, b),
        }
    }

    /// The value a branch join keeps: where one side may be CUDA, the CUDA side wins.
    /// What a method of a plain Python value returns when called with no arguments (`s.upper()`,
    /// `d.items()`), where the value is known.
    pub fn plain_method(&self, method: &str) -> Option<Value> {
        Some(match (self, method) {
            (Value::Str(s), "upper") => Value::Str(s.to_uppercase().into()),
            (Value::Str(s), "lower") => Value::Str(s.to_lowercase().into()),
            (Value::Str(s), "strip") => Value::Str(s.trim().into()),
            (Value::Mapping(entries), "keys") => Value::seq(
                entries
                    .iter()
                    .map(|(k, _)| Value::Str(k.as_str().into()))
                    .collect(),
            ),
            (Value::Mapping(entries), "values") => {
                Value::seq(entries.iter().map(|(_, v)| v.clone()).collect())
            }
            (Value::Mapping(entries), "items") => Value::seq(
                entries
                    .iter()
                    .map(|(k, v)| Value::seq(vec![Value::Str(k.as_str().into()), v.clone()]))
                    .collect(),
            ),
            _ => return None,
        })
    }

    pub fn join(self, other: Value) -> Value {
        match (self, other) {
            (a @ Value::Cuda(_), _) | (_, a @ Value::Cuda(_)) => a,
            // The elements both paths are known to hold.
            (
                Value::HostTensor {
                    pinned: a,
                    numel: m,
                    layer: x,
                },
                Value::HostTensor {
                    pinned: b,
                    numel: n,
                    layer: y,
                },
            ) => Value::HostTensor {
                pinned: a.or(b),
                numel: m.min(n),
                layer: x && y,
            },
            // A list grown on one path only (appends in a loop body): keep what it may hold.
            (Value::Sequence(a), Value::Sequence(b)) if a.same(&b) => Value::Sequence(a),
            (Value::Sequence(a), Value::Sequence(b)) if a.len() == b.len() => Value::seq(
                a.iter()
                    .zip(b.iter())
                    .map(|(x, y)| x.clone().join(y.clone()))
                    .collect(),
            ),
            (Value::Sequence(a), Value::Sequence(b)) => {
                Value::Sequence(if a.len() > b.len() { a } else { b })
            }
            // `{"num_workers": 2} if cuda else {}`: the keys either path may pass.
            (Value::Mapping(a), Value::Mapping(b)) if Arc::ptr_eq(&a, &b) => Value::Mapping(a),
            (Value::Mapping(mut a), Value::Mapping(b)) => {
                let entries = Arc::make_mut(&mut a);
                for (k, v) in Arc::unwrap_or_clone(b) {
                    match entries.iter_mut().find(|(key, _)| *key == k) {
                        Some((_, mine)) => *mine = std::mem::take(mine).join(v),
                        None => entries.push((k, v)),
                    }
                }
                Value::Mapping(a)
            }
            // The global rank on both paths, read from different launchers' variables: the local
            // one is known only where both agree.
            (Value::GlobalRank(a), Value::GlobalRank(b)) => {
                Value::GlobalRank(if a == b { a } else { None })
            }
            // The global rank on one path, the CPU on the other (`rank if cuda else "cpu"`): where
            // it names a GPU, it is the global rank.
            (Value::GlobalRank(a), b) | (b, Value::GlobalRank(a))
                if matches!(b.device(), Some(Device::Cpu)) =>
            {
                Value::GlobalRank(a)
            }
            // Equal on both paths (`world_size = 1` in each branch): that value, not a device.
            (a, b) if same(&a, &b) => a,
            // The launcher's selection on one path only: what the other path holds may select.
            (Value::LaunchVisibility, Value::None) | (Value::None, Value::LaunchVisibility) => {
                Value::LaunchVisibility
            }
            (Value::LaunchVisibility, _) | (_, Value::LaunchVisibility) => Value::Unknown,
            // `world_size = 1` on one path and read from the environment on the other: the number
            // is not known, and keeping the 1 would make a per-rank branch look like one process.
            (Value::Int(_), Value::Unknown) | (Value::Unknown, Value::Int(_)) => Value::Unknown,
            (a, b) => {
                let cuda = |v: &Value| matches!(v.device(), Some(Device::Cuda(_)));
                match (a.device(), b.device()) {
                    (Some(da @ Device::Cuda(_)), Some(_)) if !cuda(&b) || same(&a, &b) => {
                        Value::Device(da)
                    }
                    (Some(_), Some(db @ Device::Cuda(_))) => Value::Device(db),
                    (_, _) if matches!(a, Value::Unknown | Value::None) => b,
                    (_, _) if matches!(b, Value::Unknown | Value::None) => a,
                    // Two objects or functions (the processes a loop appended, a transform chain):
                    // keep both; the first stands for both where one must be chosen.
                    (_, _) if callable(&a) && callable(&b) => {
                        let mut items = a.alternatives();
                        let mut nodes: usize = items.iter().map(Value::nodes).sum();
                        for item in b.alternatives() {
                            // Past the size bound, the alternatives kept stand for the rest.
                            if items.len() < MAX_ALTERNATIVES
                                && nodes + item.nodes() <= MAX_NODES
                                && !items.iter().any(|i| same(i, &item))
                            {
                                nodes += item.nodes();
                                items.push(item);
                            }
                        }
                        Value::OneOf(items)
                    }
                    _ => Value::Unknown,
                }
            }
        }
    }
}

fn callable(v: &Value) -> bool {
    matches!(
        v,
        Value::Object(_)
            | Value::Function(..)
            | Value::BoundMethod(..)
            | Value::Class(_)
            | Value::OneOf(_)
    )
}

/// Equality of two atoms (strings, numbers, names, functions, classes, objects); `false` for
/// anything else.
pub(super) fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::Bool(x), Value::Bool(y)) | (Value::OneRank(x), Value::OneRank(y)) => x == y,
        (Value::None, Value::None)
        | (Value::LaunchVisibility, Value::LaunchVisibility)
        | (Value::Rank, Value::Rank)
        | (Value::GlobalRank(_), Value::GlobalRank(_))
        | (Value::CpuGroup, Value::CpuGroup) => true,
        (Value::Device(x), Value::Device(y)) => x == y,
        (Value::Qualified(x), Value::Qualified(y)) => x == y,
        (Value::Module(x), Value::Module(y)) => x == y,
        (Value::Function(x, _), Value::Function(y, _)) => x == y,
        (Value::Class(x), Value::Class(y)) => x == y,
        (Value::Object(x), Value::Object(y)) => x == y,
        (Value::Context(l1, m1), Value::Context(l2, m2)) => l1 == l2 && m1 == m2,
        _ => false,
    }
}

/// `q.attr` in one allocation: each read of a library name's attribute (`torch.cuda.x`) builds
/// one, and `format!` then `Arc::from` built it twice (1.5% of the CPU on transformers).
pub fn dotted(q: &str, attr: &str) -> Arc<str> {
    let mut buf = [0u8; 192];
    let len = q.len() + 1 + attr.len();
    if len > buf.len() {
        return format!("{q}.{attr}").into();
    }
    buf[..q.len()].copy_from_slice(q.as_bytes());
    buf[q.len()] = b'.';
    buf[q.len() + 1..len].copy_from_slice(attr.as_bytes());
    // Two texts joined by an ASCII dot are valid UTF-8.
    std::str::from_utf8(&buf[..len]).map_or_else(|_| format!("{q}.{attr}").into(), Arc::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_strings_parse() {
        assert_eq!(
            Device::parse("cuda"),
            Some(Device::Cuda(DeviceIndex::Current))
        );
        assert_eq!(
            Device::parse("cuda:1"),
            Some(Device::Cuda(DeviceIndex::Fixed(1)))
        );
        assert_eq!(Device::parse("cpu"), Some(Device::Cpu));
        assert_eq!(Device::parse("hello"), None);
    }

    #[test]
    fn a_join_keeps_the_cuda_side() {
        let joined = Value::Str("cuda".into()).join(Value::Str("cpu".into()));
        assert!(matches!(
            joined,
            Value::Device(Device::Cuda(DeviceIndex::Current))
        ));
        // A number known on one path only is not known (`world_size = 1`, or read from the
        // environment under a launcher).
        assert!(matches!(Value::Unknown.join(Value::Int(3)), Value::Unknown));
        assert!(matches!(Value::Int(1).join(Value::Unknown), Value::Unknown));
        assert!(matches!(Value::Int(1).join(Value::Int(1)), Value::Int(1)));
    }

    #[test]
    fn a_value_absorbs_only_what_its_join_would_leave_unchanged() {
        let shared = Value::seq(vec![Value::Int(1), Value::Str("cuda".into())]);
        let dict = Value::Mapping(Arc::new(vec![("num_workers".into(), Value::Int(2))]));
        let samples = [
            Value::Unknown,
            Value::Str("cuda".into()),
            Value::Str("cpu".into()),
            Value::Int(1),
            Value::Int(2),
            Value::Bool(true),
            Value::None,
            Value::Rank,
            Value::GlobalRank(None),
            Value::Device(Device::Cuda(DeviceIndex::Current)),
            Value::Qualified("torch.cuda".into()),
            Value::host(),
            Value::host_of(40_000),
            shared.clone(),
            shared,
            Value::seq(vec![Value::Int(1), Value::Str("cuda".into())]),
            dict.clone(),
            dict,
            Value::Mapping(Arc::new(vec![("num_workers".into(), Value::Int(2))])),
            Value::OneOf(vec![Value::Int(1), Value::None]),
        ];
        let mut absorbed = 0;
        for a in &samples {
            for b in &samples {
                if a.absorbs(b) {
                    absorbed += 1;
                    let joined = a.clone().join(b.clone());
                    assert_eq!(
                        format!("{joined:?}"),
                        format!("{a:?}"),
                        "{a:?} joined with {b:?}"
                    );
                }
            }
        }
        // Each value absorbs itself, but for the two host tensors and the choice of values (their
        // joins rebuild them); the two copies of one list, and of one dict, absorb each other,
        // and a list or dict with equal items built apart is not known to be the same without
        // comparing them.
        assert_eq!(absorbed, samples.len() - 3 + 2 + 2);
    }

    #[test]
    fn an_attribute_of_a_library_name_is_dotted() {
        assert_eq!(
            &*dotted("torch.cuda", "is_available"),
            "torch.cuda.is_available"
        );
        // Past the stack buffer: the same name, built the slow way.
        let long = "m".repeat(300);
        assert_eq!(&*dotted(&long, "x"), format!("{long}.x"));
        assert_eq!(&*dotted("é", "ü"), "é.ü");
    }

    #[test]
    fn a_value_stays_three_words() {
        // Values are copied on every read, join and snapshot: a large variant makes them all large.
        assert!(std::mem::size_of::<Value>() <= 24);
    }
}
