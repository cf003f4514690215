//! What `pickle` makes of the values a child is handed: functions and classes travel by their
//! importable name, objects by their state. A lambda, a function or class defined inside a
//! function, or one the main program defines under its main guard (or anywhere in a notebook) has
//! no name a child can import; an object holding a lock or an open file has state pickle refuses.
//! The interpreter reports the handover (`Effect::UnserializableSent`); the analysis decides whether the start method pickles.

use gpulint_core::analysis::Analysis;
use gpulint_core::effect::{Effect, Handed, StartMethod, Unserializable, UnserializableSent};

use super::value::Value;
use super::{Definition, Interp, Object};
use crate::libraries::processes::Layer;
use crate::model::{ClassId, FuncId};
use crate::source::Span;

/// How deep into held objects (attributes of attributes) the search goes.
const MAX_DEPTH: u32 = 3;

/// Methods through which a class pickles itself its own way: what it holds is its business.
const PICKLING_HOOKS: [&str; 3] = ["__getstate__", "__reduce__", "__reduce_ex__"];

/// Why a value cannot be pickled, and where the culprit was defined or made.
type Refusal = (Unserializable, Option<Span>);

/// Something an object holds that pickle refuses.
struct Held {
    /// The attribute path below the holder's attribute (for objects held by held objects).
    path: Option<String>,
    what: String,
    /// Where it was made.
    origin: Option<Span>,
    /// An object pickle refuses whatever its name (a lock, an open file, a pool), not a definition
    /// without an importable name.
    resource: bool,
}

impl<'m, A: Analysis> Interp<'m, A> {
    /// A child started with `start` through `layer` is handed these values (each with the
    /// argument that gives it): reports those pickle refuses.
    pub(super) fn hand_over(
        &mut self,
        handed: &[(Value, Span, Handed)],
        layer: Layer,
        (start_method, start_method_source): (StartMethod, Option<Span>),
    ) {
        if !layer.pickles_by_name() {
            return;
        }
        for (value, span, how) in handed {
            // Of several values the argument may hold, the first pickle refuses.
            let alternatives = match value {
                Value::OneOf(items) => items.as_slice(),
                one => std::slice::from_ref(one),
            };
            let Some((culprit, (why, origin))) = alternatives
                .iter()
                .find_map(|v| self.refusal(v, 0).map(|r| (v, r)))
            else {
                continue;
            };
            let name = self.sent_name(culprit);
            self.emit(Effect::UnserializableSent(UnserializableSent {
                span: *span,
                handed: *how,
                name: name.into(),
                why,
                origin,
                start_method,
                start_method_source,
            }));
        }
    }

    /// Why pickle refuses `value`, if it does.
    fn refusal(&self, value: &Value, depth: u32) -> Option<Refusal> {
        if depth > MAX_DEPTH {
            return None;
        }
        match value {
            Value::OneOf(items) => items.iter().find_map(|v| self.refusal(v, depth)),
            Value::Function(id, _) => self.function_refusal(*id),
            Value::BoundMethod(id, receiver) => self
                .function_refusal(*id)
                .or_else(|| self.refusal(receiver, depth + 1)),
            Value::Class(class) => self.class_refusal(*class),
            Value::Object(_) => match self.object(value)? {
                Object::Partial { func, args } => self
                    .refusal(func, depth + 1)
                    .or_else(|| args.iter().find_map(|a| self.refusal(a, depth + 1))),
                Object::Compose(steps) => {
                    self.held_in(steps.iter().map(|s| ("transforms", s)), depth)
                }
                Object::LibraryDataset { transforms } => {
                    self.held_in(transforms.iter().map(|t| ("transform", t)), depth)
                }
                Object::Instance { class, attrs, .. } => {
                    if let Some(refusal) = self.class_refusal(*class) {
                        return Some(refusal);
                    }
                    if PICKLING_HOOKS
                        .iter()
                        .any(|hook| self.find_method(*class, hook).is_some())
                    {
                        return None;
                    }
                    // In name order: the finding must not depend on the map's order.
                    let mut held: Vec<(&str, &Value)> =
                        attrs.iter().map(|(k, v)| (k.as_str(), v)).collect();
                    held.sort_by_key(|(k, _)| *k);
                    self.held_in(held, depth)
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// The first value an object holds (by attribute) that pickle refuses.
    fn held_in<'v>(
        &self,
        held: impl IntoIterator<Item = (&'v str, &'v Value)>,
        depth: u32,
    ) -> Option<Refusal> {
        held.into_iter().find_map(|(attr, v)| {
            let held = self.held(v, depth + 1)?;
            let attr = match held.path {
                Some(inner) => format!("{attr}.{inner}"),
                None => attr.to_string(),
            };
            let why = Unserializable::Holds {
                attr: attr.into(),
                what: held.what.into(),
                resource: held.resource,
            };
            Some((why, held.origin))
        })
    }

    /// What pickle refuses in a value an object holds.
    fn held(&self, value: &Value, depth: u32) -> Option<Held> {
        if depth > MAX_DEPTH {
            return None;
        }
        let resource = |what: &str, span: &Span| Held {
            path: None,
            what: what.to_string(),
            origin: Some(*span),
            resource: true,
        };
        match value {
            Value::Sequence(items) => items.iter().find_map(|v| self.held(v, depth + 1)),
            Value::Mapping(entries) => entries.iter().find_map(|(_, v)| self.held(v, depth + 1)),
            Value::Object(_) => match self.object(value)? {
                Object::Unpicklable { span, what } | Object::Thread { span, what, .. } => {
                    Some(resource(what, span))
                }
                Object::Pool { span, .. } => Some(resource("a process pool", span)),
                Object::Executor { span, .. } => Some(resource("a process pool executor", span)),
                _ => self.held_refusal(value, depth),
            },
            _ => self.held_refusal(value, depth),
        }
    }

    /// A held value that has no importable name, or an object holding what pickle refuses.
    fn held_refusal(&self, value: &Value, depth: u32) -> Option<Held> {
        let (why, origin) = self.refusal(value, depth)?;
        let name = self.sent_name(value);
        let (path, what, resource) = match why {
            Unserializable::Holds {
                attr,
                what,
                resource,
            } => (Some(attr.to_string()), what.to_string(), resource),
            Unserializable::Anonymous => (None, "a lambda".into(), false),
            Unserializable::LocalFunction => (
                None,
                format!("{name}, a function defined in a function"),
                false,
            ),
            Unserializable::LocalClass => (
                None,
                format!("{name}, of a class defined in a function"),
                false,
            ),
            Unserializable::MainOnly => {
                (None, format!("{name}, defined under the main guard"), false)
            }
            Unserializable::InteractiveMain => {
                (None, format!("{name}, defined in the notebook"), false)
            }
        };
        Some(Held {
            path,
            what,
            origin,
            resource,
        })
    }

    fn function_refusal(&self, id: FuncId) -> Option<Refusal> {
        let func = self.func(id);
        let at = Some(func.name_span);
        if func.name == "<lambda>" {
            return Some((Unserializable::Anonymous, at));
        }
        if func.parent.is_some() {
            return Some((Unserializable::LocalFunction, at));
        }
        if self.entry.main_only.contains(&Definition::Function(id)) {
            return Some((self.main_only_reason(), at));
        }
        func.class.and_then(|c| self.class_refusal(c))
    }

    fn class_refusal(&self, id: ClassId) -> Option<Refusal> {
        let class = self.class(id);
        let at = Some(class.name_span);
        if class.local {
            Some((Unserializable::LocalClass, at))
        } else if self.entry.main_only.contains(&Definition::Class(id)) {
            Some((self.main_only_reason(), at))
        } else {
            None
        }
    }

    /// Why a definition only the main program has cannot reach a child.
    fn main_only_reason(&self) -> Unserializable {
        if self.entry.interactive {
            Unserializable::InteractiveMain
        } else {
            Unserializable::MainOnly
        }
    }

    /// How messages name a value handed to a child.
    fn sent_name(&self, value: &Value) -> String {
        match self.object(value) {
            Some(Object::Instance { class, .. }) => {
                format!("a `{}` object", self.class(*class).name)
            }
            Some(Object::Partial { func, .. }) => format!("a partial of {}", self.sent_name(func)),
            Some(Object::LibraryDataset { .. }) => "the dataset".into(),
            Some(Object::Compose(_)) => "the transform chain".into(),
            _ => match value.primary() {
                Value::Class(class) => format!("`{}`", self.class(*class).name),
                other => self.describe(other),
            },
        }
    }
}
