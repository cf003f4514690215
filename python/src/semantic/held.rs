//! Module state a spawned child does not share: class attributes and the fields of objects that
//! a module global or a class attribute holds, changed by the parent at run time (GPU013). The
//! holder is the state's name: a child that imports the program afresh holds its own object
//! there, built as the import (or its own first use) builds it.

use gpulint_core::analysis::Analysis;
use gpulint_core::effect::{Effect, GlobalName};

use super::calls::Args;
use super::value::{Name, Value};
use super::{Interp, Object};
use crate::libraries::{self, process_state};
use crate::model::{ClassId, Expr, ExprKind, StmtKind};
use crate::source::{FileId, Span};

/// Where module state holds an instance: a module global or a class attribute.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Holder {
    Global(FileId, Name),
    ClassAttr(ClassId, Name),
}

impl<'m, A: Analysis> Interp<'m, A> {
    /// The state a class attribute is: `Class.attr` in the class's module.
    pub(super) fn class_state(&self, class: ClassId, attr: &str) -> GlobalName {
        GlobalName {
            module: class.file,
            name: format!("{}.{attr}", self.class(class).name).into(),
            setting: false,
        }
    }

    /// An instance stored in module state: it is that state's object from here on (the first
    /// holder names it).
    pub(super) fn mark_held(&mut self, value: &Value, holder: Holder) {
        if let Value::Object(id) = value.primary() {
            if let Some(Object::Instance { held_by, .. }) = self.object_mut(*id) {
                held_by.get_or_insert(holder);
            }
        }
    }

    /// The module state holding an instance, if any, by its name.
    fn holder(&self, value: &Value) -> Option<GlobalName> {
        match self.object(value)? {
            Object::Instance {
                held_by: Some(holder),
                ..
            } => Some(self.state_name(holder)),
            _ => None,
        }
    }

    fn state_name(&self, holder: &Holder) -> GlobalName {
        match holder {
            Holder::Global(module, name) => GlobalName {
                module: *module,
                name: name.as_str().into(),
                setting: false,
            },
            Holder::ClassAttr(class, attr) => self.class_state(*class, attr),
        }
    }

    /// Whether the instance is the one its holder holds in this process now: not one handed to
    /// this child by its parent (a copy made with the parent's changes), which the holder of a
    /// child that imported the program afresh does not hold.
    fn held_now(&self, value: &Value) -> bool {
        let Value::Object(id) = value.primary() else {
            return false;
        };
        let Some(Object::Instance {
            held_by: Some(holder),
            ..
        }) = self.object(value)
        else {
            return false;
        };
        let now = match holder {
            Holder::Global(module, name) => self
                .world
                .globals()
                .get(module)
                .and_then(|g| g.get(name.as_str()))
                .cloned(),
            Holder::ClassAttr(class, attr) => self
                .world
                .class_attrs()
                .get(class)
                .and_then(|a| a.get(attr.as_str()))
                .cloned(),
        };
        matches!(now.as_ref().map(Value::primary), Some(Value::Object(held)) if held == id)
    }

    /// `Class.attr = v` at run time: a class attribute rebound.
    pub(super) fn class_attr_written(
        &mut self,
        class: ClassId,
        attr: &str,
        value: &Value,
        span: Span,
    ) {
        let state = self.class_state(class, attr);
        self.mark_held(value, Holder::ClassAttr(class, Name::from(attr)));
        if self.control.run_time && !self.refreshes(class, attr) {
            self.emit(Effect::GlobalWritten {
                span,
                global: state,
                in_place: false,
            });
        }
    }

    /// The assignment running gives `attr` the expression the class body gives it (a
    /// `refresh()` that reads the environment again): a child importing the module computes the
    /// same from what it inherits, so nothing is lost.
    fn refreshes(&self, class: ClassId, attr: &str) -> bool {
        let Some(rhs) = self.assigned_from else {
            return false;
        };
        let len = |span: Span| span.end.saturating_sub(span.start);
        // The class body's expression for `attr`, when it is as long as this one: only then are
        // the texts read (a text read from disk is read again on each access).
        let Some(at_import) = self.class(class).body.iter().find_map(|s| match &s.kind {
            StmtKind::Assign { targets, value }
                if len(value.span) == len(rhs.span)
                    && targets
                        .iter()
                        .any(|t| matches!(&t.kind, ExprKind::Name(n) if &**n == attr)) =>
            {
                Some(value.span)
            }
            _ => None,
        }) else {
            return false;
        };
        let now = self
            .p
            .file(self.cur)
            .text
            .get(rhs.span.start as usize..rhs.span.end as usize)
            .map(str::to_string);
        let then = self
            .p
            .file(class.file)
            .text
            .get(at_import.start as usize..at_import.end as usize)
            .map(str::to_string);
        now.is_some() && now == then
    }

    /// `obj.field = v` or `setattr(obj, "field", v)` at run time on an object module state holds:
    /// that field of the state changed, whatever name the code reached the object by; with the
    /// field not known (`setattr(obj, key, v)`), the object as a whole.
    pub(super) fn field_written(&mut self, owner: &Value, field: Option<&str>, span: Span) {
        if !self.control.run_time {
            return;
        }
        if let Some(state) = self.holder(owner) {
            let global = match field {
                Some(field) => field_of(&state, field),
                None => state,
            };
            self.emit(Effect::GlobalWritten {
                span,
                global,
                in_place: true,
            });
        }
    }

    /// A read of a class attribute, or of a field of an object module state holds, in a child
    /// that imported the program afresh. `receiver`: the expression the attribute is read on.
    pub(super) fn state_read(
        &mut self,
        owner: &Value,
        receiver: &Expr,
        attr: &str,
        read: &Value,
        span: Span,
    ) {
        let code = matches!(
            read,
            Value::Function(..)
                | Value::Class(_)
                | Value::Module(_)
                | Value::Qualified(_)
                | Value::BoundMethod(..)
        );
        if !self.proc_ref().spawned || code {
            return;
        }
        // The reader writes through the same name (`cls._shared = ...`, `self._cache = ...`):
        // a lazy value it fills itself.
        let fills = match (&receiver.kind, self.frames.last()) {
            (ExprKind::Name(n), Some(f)) => self.written_globals(f.func).iter().any(|w| w == &**n),
            _ => false,
        };
        let states = match owner {
            Value::Class(class) if self.is_class_attr(*class, attr) => {
                vec![self.class_state(*class, attr)]
            }
            // A field of the child's own object (not one its parent handed it): the field, and
            // the object as a whole (changed where the field was not known).
            _ => match self.holder(owner) {
                Some(state) if self.has_field(owner, attr) && self.held_now(owner) => {
                    vec![field_of(&state, attr), state]
                }
                _ => return,
            },
        };
        for global in states {
            self.emit(Effect::GlobalRead {
                span,
                global,
                defined: true,
                owner: fills,
            });
        }
    }

    fn is_class_attr(&self, class: ClassId, attr: &str) -> bool {
        self.world
            .class_attrs()
            .get(&class)
            .is_some_and(|attrs| attrs.contains_key(attr))
    }

    /// A library call that changes or reads module state: `setattr(obj, ...)` on an object
    /// module state holds; a library setting's setter and the calls that depend on it.
    pub(super) fn state_call(&mut self, name: &str, args: &Args<'m>, span: Span) {
        if name == libraries::python::SETS_ATTRIBUTE {
            if let [(owner, _), (field, _), ..] = &args.pos[..] {
                let (owner, field) = (owner.clone(), field.as_str().map(str::to_string));
                self.field_written(&owner, field.as_deref(), span);
            }
        }
        if let Some(row) = process_state::set_by(name) {
            let to_default = match args.pos.first() {
                Some((Value::Qualified(v) | Value::Str(v), _)) => row.defaults.contains(&&**v),
                _ => false,
            };
            if self.control.run_time && !to_default {
                let state = self.library_state(row.state);
                self.emit(Effect::GlobalWritten {
                    span,
                    global: state,
                    in_place: false,
                });
            }
        }
        if self.proc_ref().spawned {
            let read: Vec<_> = process_state::read_by(name)
                .filter(|row| args.kw.iter().all(|(k, ..)| k != row.unless))
                .map(|row| self.library_state(row.state))
                .collect();
            for state in read {
                self.emit(Effect::GlobalRead {
                    span,
                    global: state,
                    defined: true,
                    owner: false,
                });
            }
        }
    }

    /// A library setter handed over to be called in the child (`initializer=...`): the child
    /// sets that state itself, when it starts.
    pub(super) fn state_set_in_child(&mut self, name: &str) -> bool {
        let (Some(row), Some(span)) = (process_state::set_by(name), self.proc_ref().child_of)
        else {
            return false;
        };
        let state = self.library_state(row.state);
        self.emit(Effect::GlobalWritten {
            span,
            global: state,
            in_place: false,
        });
        true
    }

    /// A library's process-wide state, named as one module state of the main program.
    fn library_state(&self, state: &str) -> GlobalName {
        GlobalName {
            module: self.main,
            name: state.into(),
            setting: true,
        }
    }

    fn has_field(&self, owner: &Value, attr: &str) -> bool {
        matches!(self.object(owner), Some(Object::Instance { attrs, .. }) if attrs.contains_key(attr))
    }
}

/// One field of the object module state holds: `state.field`.
fn field_of(state: &GlobalName, field: &str) -> GlobalName {
    GlobalName {
        module: state.module,
        name: format!("{}.{field}", state.name).into(),
        setting: false,
    }
}
