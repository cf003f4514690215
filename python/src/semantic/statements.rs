//! Statements that define, import and handle: `import`, `from ... import`, `def`, `class`, `try`
//! and `return` (`Interp::exec` dispatches to them).

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;
use thin_vec::ThinVec;

use gpulint_core::analysis::Analysis;

use super::interp::Flow;
use super::value::{dotted, Name, Value};
use super::Interp;
use crate::libraries::first_name;
use crate::model::{ClassId, Expr, ExprKind, FuncId, ImportName, Stmt, StmtKind};
use crate::source::Span;

impl<'m, A: Analysis> Interp<'m, A> {
    /// `import a.b [as c]`: a module of the program, else a library's name.
    pub(super) fn exec_import(&mut self, names: &'m [ImportName], span: Span) {
        for name in names {
            if let Some(chain) = self.import_first_party(0, &name.name) {
                let bound = match &name.asname {
                    Some(alias) => (alias.as_str(), chain.last()),
                    None => (first_name(&name.name), chain.first()),
                };
                if let (name, Some(node)) = bound {
                    self.store(name, Value::Module(*node), span);
                }
                continue;
            }
            self.import_effect(&name.name, span);
            match &name.asname {
                Some(alias) => self.store(alias, Value::Qualified(name.name.as_str().into()), span),
                None => {
                    let top = first_name(&name.name);
                    self.store(top, Value::Qualified(top.into()), span);
                }
            }
        }
    }

    /// `from module import name [as alias]` (relative at `level`), `*` included.
    pub(super) fn exec_import_from(
        &mut self,
        module: Option<&'m str>,
        level: u32,
        names: &'m [ImportName],
        span: Span,
    ) {
        let base = module.unwrap_or("");
        let first_party = self.import_first_party(level, base);
        for name in names {
            if name.name == "*" {
                if let Some(node) = first_party.as_ref().and_then(|c| c.last()) {
                    self.import_star(*node, span);
                }
                continue;
            }
            let bound = name.asname.as_deref().unwrap_or(&name.name);
            let value = match (&first_party, module) {
                (Some(chain), _) => {
                    let node = *chain.last().expect("a resolved import names a module");
                    self.import_name(node, level, base, &name.name)
                }
                (None, Some(module)) if level == 0 => {
                    let full = dotted(module, &name.name);
                    self.import_effect(&full, span);
                    Value::Qualified(full)
                }
                // A relative import of a module not in the program (not found on disk).
                _ => Value::Unknown,
            };
            self.store(bound, value, span);
        }
    }

    /// `def`: the function, with the enclosing locals it reads captured.
    pub(super) fn exec_def(&mut self, id: FuncId, span: Span) {
        let func = self.func(id);
        self.eval_decorators(&func.decorators);
        self.register_task(id, &func.decorators);
        // Only the names the closure reads: copying every enclosing local into every
        // nested function would make a function of many nested defs quadratic.
        let free = self.free_names(id);
        let captures = self.frames.last().map(|f| {
            let mut all: HashMap<Name, Value> = HashMap::default();
            for name in free.iter() {
                let value = f
                    .locals
                    .get(name.as_str())
                    .or_else(|| f.captures.as_ref().and_then(|c| c.get(name.as_str())));
                if let Some(v) = value {
                    all.insert(Name::from(name.as_str()), v.clone());
                }
            }
            Arc::new(all)
        });
        if self.defines_main_only() {
            self.entry.main_only.insert(super::Definition::Function(id));
        }
        self.store(&func.name, Value::Function(id, captures), span);
    }

    /// `class`: its bases and the attributes its body assigns.
    pub(super) fn exec_class(&mut self, id: ClassId, span: Span) {
        if self.defines_main_only() {
            self.entry.main_only.insert(super::Definition::Class(id));
        }
        let class = self.class(id);
        self.eval_decorators(&class.decorators);
        let bases: Vec<Value> = class.bases.iter().map(|b| self.eval(b)).collect();
        self.world.set_class_bases(id, bases);
        for s in &class.body {
            if let StmtKind::Assign { targets, value } = &s.kind {
                let v = self.eval(value);
                for t in targets {
                    if let ExprKind::Name(name) = &t.kind {
                        let v =
                            self.as_global(v.clone(), &format!("{}.{name}", class.name), s.span);
                        self.world
                            .class_attrs_mut(id)
                            .insert(Name::from(&**name), v);
                    }
                }
            }
        }
        self.store(&class.name, Value::Class(id), span);
    }

    /// `try`: what raises in the body may be caught there; each handler may run.
    pub(super) fn exec_try(
        &mut self,
        body: &'m [Stmt],
        handlers: &'m [ThinVec<Stmt>],
        orelse: &'m [Stmt],
        finally: &'m [Stmt],
    ) -> Flow {
        let caught = !handlers.is_empty();
        self.control.try_depth += u32::from(caught);
        self.exec_block(body);
        self.control.try_depth -= u32::from(caught);
        for handler in handlers {
            self.exec_maybe(handler);
        }
        self.exec_block(orelse);
        self.exec_block(finally)
    }

    /// `return`: the value joins the frame's other returns.
    pub(super) fn exec_return(&mut self, value: Option<&'m Expr>) -> Flow {
        let v = value.map_or(Value::None, |e| self.eval(e));
        if let Some(frame) = self.frames.last_mut() {
            let prev = std::mem::take(&mut frame.returns);
            frame.returns = match prev {
                Value::Unknown => v,
                prev => prev.join(v),
            };
        }
        Flow::Return
    }
}
