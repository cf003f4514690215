//! Bindings: assignments and stores, the environment's writes, globals written and read at run
//! time, name lookup.

use std::sync::Arc;

use gpulint_core::analysis::Analysis;
use gpulint_core::effect::{Effect, GlobalName, VisibilityWrite};

use super::interp::*;
use super::trail::Place;
use super::value::{Name, Value};
use super::{Interp, Object};
use crate::libraries::{self, EnvRole};
use crate::model::{Expr, ExprKind};
use crate::source::Span;

impl<'m, A: Analysis> Interp<'m, A> {
    pub(super) fn store(&mut self, name: &str, value: Value, span: Span) {
        let to_global = match self.frames.last() {
            None => true,
            Some(f) => f.declared_global.contains(name),
        };
        if to_global {
            if self.control.run_time {
                self.global_written(name, span, false);
            }
            let value = self.as_global(value, name, span);
            self.mark_held(
                &value,
                super::held::Holder::Global(self.cur, Name::from(name)),
            );
            let name = Name::from(name);
            let noted = self.in_branch().then(|| name.clone());
            let old = self.scope_mut().insert(name, value);
            if let Some(name) = noted {
                self.note_write(Place::Module(self.cur), name, old);
            }
        } else {
            let name = Name::from(name);
            let noted = self.in_branch().then(|| name.clone());
            let Some(frame) = self.frames.last_mut() else {
                return;
            };
            frame.forget_exact(&name);
            let old = Arc::make_mut(&mut frame.locals).insert(name, value);
            if let Some(name) = noted {
                self.note_write(Place::Locals(self.frames.len()), name, old);
            }
        }
    }

    /// Marks a CUDA object stored in a global binding with that binding.
    pub(super) fn as_global(&self, value: Value, name: &str, span: Span) -> Value {
        match value {
            Value::Cuda(mut obj) if obj.global.is_none() => {
                obj.global = Some((name.into(), span));
                Value::Cuda(obj)
            }
            other => other,
        }
    }

    pub(super) fn assign(&mut self, target: &'m Expr, value: Value, span: Span) {
        match &target.kind {
            ExprKind::Name(name) => self.store(name, value, span),
            ExprKind::Attribute { value: obj, attr } => {
                let owner = self.eval_quiet(obj);
                if let Some(Object::Channel(channel)) = self.object(&owner) {
                    let channel = *channel;
                    self.send_values(span, channel, &[value], "an attribute assignment");
                    return;
                }
                match owner.primary().clone() {
                    Value::Object(id) => {
                        let instance = match self.object_mut(id) {
                            Some(Object::Instance { attrs, .. }) => {
                                attrs.insert(Name::from(&**attr), value);
                                true
                            }
                            _ => false,
                        };
                        if instance {
                            self.field_written(&owner, Some(attr), span);
                        }
                    }
                    Value::Class(id) => {
                        let name = format!("{}.{attr}", self.class(id).name);
                        let value = self.as_global(value, &name, span);
                        self.class_attr_written(id, attr, &value, span);
                        self.world
                            .class_attrs_mut(id)
                            .insert(Name::from(&**attr), value);
                    }
                    _ => {}
                }
            }
            ExprKind::Subscript {
                value: container,
                index,
            } => {
                let owner = self.eval_quiet(container);
                let key = self.eval(index);
                if let (Value::Qualified(q), Some(k)) = (&owner, key.as_str()) {
                    if is_environ(q) {
                        self.write_env(k, &value, span);
                    }
                }
                if let (Value::Mapping(entries), Some(k), ExprKind::Name(name)) =
                    (&owner, key.as_str(), &container.kind)
                {
                    // `env["MASTER_ADDR"] = host`: later readers of the dict see the key.
                    let updated = super::value::with_entries(entries, [(k.to_string(), value)]);
                    self.store(name, updated, span);
                } else if let Some(Object::Channel(channel)) = self.object(&owner) {
                    let channel = *channel;
                    self.send_values(span, channel, &[value], "an item assignment");
                } else if is_container(&owner) {
                    self.changed_in_place(container, span);
                }
            }
            ExprKind::Tuple(targets) | ExprKind::List(targets) => {
                let items = match value {
                    Value::Sequence(items) if items.len() == targets.len() => items.to_vec(),
                    other => vec![other; targets.len()],
                };
                for (t, v) in targets.iter().zip(items) {
                    self.assign(t, v, span);
                }
            }
            ExprKind::Starred(inner) => self.assign(inner, Value::Unknown, span),
            _ => {
                self.eval(target);
            }
        }
    }

    /// `model.to("cpu")`, `model.cuda()` as a statement: a module moves in place, so the
    /// receiver (a name or an attribute) now holds what the move returned. (A tensor's move whose
    /// result is dropped does nothing; rebinding it mis-models only code that is wrong anyway.)
    pub(super) fn move_in_place(&mut self, e: &'m Expr, result: Value, span: Span) {
        let ExprKind::Call { func, .. } = &e.kind else {
            return;
        };
        let ExprKind::Attribute { value: recv, attr } = &func.kind else {
            return;
        };
        // Every expression statement that calls a method comes here: the row lookup, cheaper
        // than reading the receiver, goes first.
        let moves = libraries::method(attr, |_, does| {
            matches!(
                does,
                libraries::MethodBehaviour::MovesTo { .. }
                    | libraries::MethodBehaviour::MovesToCuda { .. }
                    | libraries::MethodBehaviour::MovesToCpu
            )
        });
        if moves.is_none() {
            return;
        }
        // What the receiver holds now, read without using it: a project's own object with a
        // method of that name is not a module being moved.
        let before = match &recv.kind {
            ExprKind::Name(n) => self.lookup(n).unwrap_or_default(),
            ExprKind::Attribute { value, attr } => match &value.kind {
                ExprKind::Name(owner) => {
                    let owner = self.lookup(owner).unwrap_or_default();
                    self.attribute(&owner, attr)
                }
                _ => return,
            },
            _ => return,
        };
        let moved = matches!(before, Value::Cuda(_))
            || matches!(result, Value::Cuda(_))
                && matches!(before, Value::Unknown | Value::HostTensor { .. });
        if moved {
            self.assign(recv, result, span);
        }
    }

    /// An environment write: visibility narrowed before CUDA starts binds the device.
    pub(super) fn write_env(&mut self, key: &str, value: &Value, span: Span) {
        let text = match value {
            Value::Str(s) => Some(s.to_string()),
            Value::Int(i) => Some(i.to_string()),
            _ => None,
        };
        let process = self.proc();
        let narrows =
            libraries::env_role(key) == Some(EnvRole::NarrowsVisibility) && process.cuda.is_none();
        if narrows {
            process.bound.get_or_insert(span);
        }
        // A value gpulint cannot tell is kept as "?": the variable is set, to something.
        let kept = match value {
            Value::LaunchVisibility => String::from(LAUNCH_SELECTION),
            _ => text.clone().unwrap_or_else(|| String::from("?")),
        };
        Arc::make_mut(&mut process.env).insert(key.to_string(), kept);
        self.rendezvous_written(key, value, span);
        if narrows {
            self.narrowed(span);
        }
        self.emit(Effect::EnvWritten {
            span,
            key: key.into(),
            value: text.map(Into::into),
            visibility: visibility_write(key, value),
        });
    }

    /// A global bound at run time (see `Interp::run_time`), in the running module.
    pub(super) fn global_written(&mut self, name: &str, span: Span, in_place: bool) {
        let global = GlobalName {
            module: self.cur,
            name: name.into(),
            setting: false,
        };
        self.emit(Effect::GlobalWritten {
            span,
            global,
            in_place,
        });
    }

    /// `target[k] = v`, `target.a = v` or `target.update(...)`: at run time, on a module global,
    /// a change to what the global holds.
    pub(super) fn changed_in_place(&mut self, target: &Expr, span: Span) {
        if let ExprKind::Name(name) = &target.kind {
            if self.control.run_time && self.is_global_name(name) && self.global(name).is_some() {
                self.global_written(name, span, true);
            }
        }
    }

    /// A read of a global by a child that imported the program afresh. Definitions and imports
    /// are the same in every interpreter: only data can differ.
    pub(super) fn global_read(&mut self, name: &str, span: Span, value: &Value) {
        if matches!(
            value,
            Value::Function(..) | Value::Class(_) | Value::Module(_) | Value::Qualified(_)
        ) || !self.is_global_name(name)
        {
            return;
        }
        // A memo of this process ("already configured here"): the reader writes it, itself or
        // through a function of its module it calls (`if c != LAST: configure(c)`).
        let owner = match self.frames.last() {
            Some(f) => {
                let func = f.func;
                self.written_globals(func).iter().any(|n| n == name)
                    || self.called_names(func).iter().any(|callee| {
                        matches!(self.global(callee), Some(Value::Function(id, ..))
                            if id.file == func.file
                                && self.written_globals(*id).iter().any(|n| n == name))
                    })
            }
            None => false,
        };
        let defined = self.global(name).is_some();
        self.emit(Effect::GlobalRead {
            span,
            global: GlobalName {
                module: self.cur,
                name: name.into(),
                setting: false,
            },
            defined,
            owner,
        });
    }

    /// A `def` or `class` the main program runs under its main guard, at module level; for an
    /// interactive main, any at module level.
    pub(super) fn defines_main_only(&self) -> bool {
        self.frames.is_empty()
            && (self.control.run_time || self.entry.interactive)
            && self.cur == self.main
    }

    pub(super) fn lookup(&self, name: &str) -> Option<Value> {
        if let Some(frame) = self.frames.last() {
            if !frame.declared_global.contains(name) {
                if let Some(v) = frame.locals.get(name) {
                    return Some(v.clone());
                }
                if let Some(v) = frame.captures.as_ref().and_then(|c| c.get(name)) {
                    return Some(v.clone());
                }
            }
        }
        self.global(name).cloned()
    }

    /// Whether `name` resolves to a module-level binding here.
    pub(super) fn is_global_name(&self, name: &str) -> bool {
        match self.frames.last() {
            None => true,
            Some(f) => {
                f.declared_global.contains(name)
                    || (!f.locals.contains_key(name)
                        && !f.captures.as_ref().is_some_and(|c| c.contains_key(name)))
            }
        }
    }

    /// A name no scope binds: the builtin of that name, made once per analysis.
    pub(super) fn builtin(&mut self, name: &'m str) -> Value {
        self.builtins
            .entry(name)
            .or_insert_with(|| Value::Qualified(format!("builtins.{name}").into()))
            .clone()
    }
}

/// How the environment keeps a launcher's GPU selection written back (its text unknown).
pub(super) const LAUNCH_SELECTION: &str = "<launcher's selection>";

/// What writing `value` to `key` does to the GPUs the process sees, if `key` selects them.
pub(super) fn visibility_write(key: &str, value: &Value) -> Option<VisibilityWrite> {
    if libraries::env_role(key) != Some(EnvRole::NarrowsVisibility) {
        return None;
    }
    Some(match value {
        Value::Str(s) if s.trim().is_empty() => VisibilityWrite::HidesAll,
        Value::LaunchVisibility => VisibilityWrite::Copied,
        _ => VisibilityWrite::Selects,
    })
}

/// Whether the qualified name is the process environment (`Behaviour::Environ`).
pub(super) fn is_environ(name: &str) -> bool {
    matches!(
        crate::libraries::lookup(name),
        Some((crate::libraries::Behaviour::Environ, _))
    )
}
