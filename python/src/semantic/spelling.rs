//! How the running module spells a library name, for fixes that write code at a call: the
//! package's `get_context` beside a process made on its default context (`mp.Pool(4)` becomes
//! `mp.get_context("spawn").Pool(4)`), and the environment a local rank is read from.

use gpulint_core::analysis::Analysis;
use gpulint_core::effect::{DefaultContextCall, LocalRankRead};

use super::calls::Args;
use super::value::Value;
use super::Interp;
use crate::libraries::processes::{Layer, StartMethod};
use crate::libraries::{self, Behaviour};
use crate::model::ExprKind;
use crate::source::Span;

/// Whether the library name `name` is `layer`'s `get_context`.
fn gets_context(name: &str, layer: Layer) -> bool {
    matches!(libraries::lookup(name), Some((Behaviour::GetContext { layer: l, .. }, _)) if l == layer)
}

fn is_environ(name: &str) -> bool {
    matches!(libraries::lookup(name), Some((Behaviour::Environ, _)))
}

/// The last name of a dotted library name: what a module offers it as.
fn attribute(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

impl<'m, A: Analysis> Interp<'m, A> {
    /// The call at `call` as a [`DefaultContextCall`]; `None` when a context made it (`context`)
    /// or the callee is not a library name as written.
    pub(super) fn made_by(
        &self,
        call: Span,
        layer: Layer,
        args: &Args<'m>,
        context: Option<(StartMethod, Span)>,
    ) -> Option<DefaultContextCall> {
        if context.is_some() {
            return None;
        }
        let (callee, name) = args.callee.as_ref()?;
        let getter = attribute(layer.get_context());
        // `mp.Pool`: the module the call spells, when it has the package's `get_context`.
        let spelled = match &callee.kind {
            ExprKind::Attribute { value, .. } => value.dotted().filter(|_| {
                name.rsplit_once('.')
                    .is_some_and(|(module, _)| gets_context(&format!("{module}.{getter}"), layer))
            }),
            _ => None,
        };
        let get_context = match spelled {
            Some(module) => Some(format!("{module}.{getter}")),
            None => self.global_spelling(|q| gets_context(q, layer), getter),
        };
        Some(DefaultContextCall {
            call,
            callee: callee.span,
            get_context: get_context.map(Into::into),
        })
    }

    /// How the running module reads the environment variable `variable`, if it names the
    /// environment (`os` imported, or `environ` from it).
    pub(super) fn local_rank_read(&self, variable: &'static str) -> Option<LocalRankRead> {
        let environ = self.global_spelling(is_environ, attribute(libraries::python::ENVIRON))?;
        Some(LocalRankRead {
            variable: variable.into(),
            environ: environ.into(),
        })
    }

    /// A global of the running module that is a library name `wanted` accepts (`get_context`
    /// imported by name), or a module whose attribute `attr` is one (`multiprocessing`), spelled
    /// `name` or `name.attr`; never a name a local of the running function hides. The first by
    /// name, so that runs agree.
    fn global_spelling(&self, wanted: impl Fn(&str) -> bool, attr: &str) -> Option<String> {
        let globals = self.world.globals().get(&self.cur)?;
        let hidden = |name: &str| {
            self.frames
                .last()
                .is_some_and(|f| f.locals.contains_key(name))
        };
        let mut found: Vec<String> = globals
            .iter()
            .filter(|(name, _)| !hidden(name))
            .filter_map(|(name, value)| match value {
                Value::Qualified(q) if wanted(q) => Some(name.to_string()),
                Value::Qualified(q) if wanted(&format!("{q}.{attr}")) => {
                    Some(format!("{name}.{attr}"))
                }
                _ => None,
            })
            .collect();
        found.sort();
        found.into_iter().next()
    }
}
