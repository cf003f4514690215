//! Starting the children of a fork point by spawn, with an edit of the call that makes them.

use gpulint_core::diagnostic::Edit;
use gpulint_core::effect::{DefaultContextCall, SpawnFix};
use gpulint_core::source::Span;

use super::{add_keyword, replace, under_main_guard};

/// A fork point, as the facts give it.
pub struct ForkPoint<'a> {
    pub span: Span,
    /// How its launcher is asked for spawn.
    pub fix: SpawnFix,
    pub at_module_scope: bool,
    pub made_by: Option<&'a DefaultContextCall>,
}

/// The edit that makes the fork point start its children by spawn, and what it does in words:
/// a keyword for a DataLoader or an executor, a spawn context for a pool or a process made on
/// its package's default one. `None` where no call of its own says it (another kind of fork
/// point, a context object, a module that does not name `get_context`), and in module-level
/// code outside the main guard, which spawned children would run again while importing the module
/// (GPU004).
pub fn spawn_at_fork_point(text: &str, fork: &ForkPoint) -> Option<(Edit, String)> {
    if fork.at_module_scope && !under_main_guard(text, fork.span) {
        return None;
    }
    if let SpawnFix::Keyword(argument) = fork.fix {
        return Some((
            add_keyword(text, fork.span, argument)?,
            format!("pass `{argument}`"),
        ));
    }
    // A fix edits the finding's own file: a process made in another module is left alone.
    let made_by = fork.made_by.filter(|m| m.call.file == fork.span.file)?;
    let get_context = made_by.get_context.as_deref()?;
    match fork.fix {
        SpawnFix::ContextKeyword(keyword) => {
            let argument = format!("{keyword}={get_context}(\"spawn\")");
            let edit = add_keyword(text, made_by.call, &argument)?;
            Some((edit, format!("pass `{argument}`")))
        }
        SpawnFix::FromContext => {
            let callee = text.get(made_by.callee.start as usize..made_by.callee.end as usize)?;
            let class = callee.rsplit('.').next()?;
            if !class.chars().all(|c| c.is_alphanumeric() || c == '_') {
                return None;
            }
            let context = format!("{get_context}(\"spawn\")");
            Some((
                replace(made_by.callee, format!("{context}.{class}")),
                format!("create it from `{context}`"),
            ))
        }
        SpawnFix::None | SpawnFix::Keyword(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fix::{applied, span_of};

    fn fixed(text: &str, fix: SpawnFix, call: &str, get_context: Option<&str>) -> Option<String> {
        let callee = call.split('(').next().unwrap();
        let made_by = DefaultContextCall {
            call: span_of(text, call),
            callee: span_of(text, callee),
            get_context: get_context.map(Into::into),
        };
        let fork = ForkPoint {
            span: span_of(text, call),
            fix,
            at_module_scope: false,
            made_by: Some(&made_by),
        };
        spawn_at_fork_point(text, &fork).map(|(edit, _)| applied(text, &[edit]))
    }

    #[test]
    fn a_pool_or_process_is_made_from_a_spawn_context() {
        let text = "with mp.Pool(4) as pool:\n";
        assert_eq!(
            fixed(
                text,
                SpawnFix::FromContext,
                "mp.Pool(4)",
                Some("mp.get_context")
            )
            .as_deref(),
            Some("with mp.get_context(\"spawn\").Pool(4) as pool:\n")
        );
        let text = "p = Process(target=f)\n";
        assert_eq!(
            fixed(
                text,
                SpawnFix::FromContext,
                "Process(target=f)",
                Some("get_context")
            )
            .as_deref(),
            Some("p = get_context(\"spawn\").Process(target=f)\n")
        );
    }

    #[test]
    fn an_executor_gets_a_spawn_context_keyword() {
        let text = "ex = ProcessPoolExecutor(2)\n";
        assert_eq!(
            fixed(
                text,
                SpawnFix::ContextKeyword("mp_context"),
                "ProcessPoolExecutor(2)",
                Some("mp.get_context")
            )
            .as_deref(),
            Some("ex = ProcessPoolExecutor(2, mp_context=mp.get_context(\"spawn\"))\n")
        );
    }

    #[test]
    fn no_spawn_for_a_process_made_in_another_file() {
        let text = "p = mp.Process(target=f)\n";
        let made_by = DefaultContextCall {
            call: Span::new(gpulint_core::source::FileId(1), 4, 24),
            callee: Span::new(gpulint_core::source::FileId(1), 4, 14),
            get_context: Some("mp.get_context".into()),
        };
        let fork = ForkPoint {
            span: span_of(text, "p"),
            fix: SpawnFix::FromContext,
            at_module_scope: false,
            made_by: Some(&made_by),
        };
        assert!(spawn_at_fork_point(text, &fork).is_none());
    }

    #[test]
    fn no_spawn_without_a_name_for_get_context() {
        let text = "pool = Pool(4)\n";
        assert!(fixed(text, SpawnFix::FromContext, "Pool(4)", None).is_none());
        assert!(fixed(text, SpawnFix::None, "Pool(4)", Some("mp.get_context")).is_none());
    }
}
