//! What `pickle` makes of the values a child is handed: functions and classes travel by their
//! importable name, objects by their state. A lambda, a function or class defined inside a
//! function, or one the main program defines under its main guard has no name a child can import;
//! an object holding a lock or an open file has state pickle refuses. The interpreter reports the
//! handover (`Effect::UnserializableSent`); the analysis decides whether the start method pickles.

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
                Object::Compose(steps) => steps.iter().find_map(|s| self.refusal(s, depth + 1)),
                Object::LibraryDataset { transforms } => {
                    transforms.iter().find_map(|t| self.refusal(t, depth + 1))
                }
                Object::Instance { class, attrs } => {
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
                    let mut names: Vec<&String> = attrs.keys().collect();
                    names.sort();
                    names.into_iter().find_map(|attr| {
                        let (inner, what, origin) = self.held(&attrs[attr], depth + 1)?;
                        let attr = match inner {
                            Some(inner) => format!("{attr}.{inner}"),
                            None => attr.clone(),
                        };
                        let why = Unserializable::Holds {
                            attr: attr.into(),
                            what: what.into(),
                        };
                        Some((why, origin))
                    })
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// What pickle refuses in a value an object holds: the attribute path below it (for objects
    /// held by held objects), what it is, and where it was made.
    fn held(&self, value: &Value, depth: u32) -> Option<(Option<String>, String, Option<Span>)> {
        if depth > MAX_DEPTH {
            return None;
        }
        match value {
            Value::Sequence(items) => items.iter().find_map(|v| self.held(v, depth + 1)),
            Value::Mapping(entries) => entries.iter().find_map(|(_, v)| self.held(v, depth + 1)),
            Value::Object(_) => match self.object(value)? {
                Object::Unpicklable { span, what } => Some((None, what.clone(), Some(*span))),
                Object::Pool { span, .. } => Some((None, "a process pool".into(), Some(*span))),
                Object::Executor { span, .. } => {
                    Some((None, "a process pool executor".into(), Some(*span)))
                }
                _ => self.held_refusal(value, depth),
            },
            _ => self.held_refusal(value, depth),
        }
    }

    fn held_refusal(
        &self,
        value: &Value,
        depth: u32,
    ) -> Option<(Option<String>, String, Option<Span>)> {
        let (why, origin) = self.refusal(value, depth)?;
        let name = self.sent_name(value);
        Some(match why {
            Unserializable::Holds { attr, what } => {
                (Some(attr.to_string()), what.to_string(), origin)
            }
            Unserializable::Anonymous => (None, "a lambda".into(), origin),
            Unserializable::LocalFunction => (
                None,
                format!("{name}, a function defined in a function"),
                origin,
            ),
            Unserializable::LocalClass => (
                None,
                format!("{name}, of a class defined in a function"),
                origin,
            ),
            Unserializable::MainOnly => (
                None,
                format!("{name}, defined under the main guard"),
                origin,
            ),
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
        if self.main_only.contains(&Definition::Function(id)) {
            return Some((Unserializable::MainOnly, at));
        }
        func.class.and_then(|c| self.class_refusal(c))
    }

    fn class_refusal(&self, id: ClassId) -> Option<Refusal> {
        let class = self.class(id);
        let at = Some(class.name_span);
        if class.local {
            Some((Unserializable::LocalClass, at))
        } else if self.main_only.contains(&Definition::Class(id)) {
            Some((Unserializable::MainOnly, at))
        } else {
            None
        }
    }

    /// How messages name a value handed to a child.
    fn sent_name(&self, value: &Value) -> String {
        match self.object(value) {
            Some(Object::Instance { class, .. }) => {
                format!("a `{}` object", self.class(*class).name)
            }
            Some(Object::Partial { func, .. }) => format!("a partial of {}", self.sent_name(func)),
            _ => match value.primary() {
                Value::Class(class) => format!("`{}`", self.class(*class).name),
                other => self.describe(other),
            },
        }
    }
}
