//! Library methods that fork worker processes of their own, each described by its row
//! (`ForkingCall`): whether this call forks, how its workers start and what they run.

use gpulint_core::analysis::Analysis;
use gpulint_core::effect::Handed;

use super::calls::{passthrough, Args};
use super::children::Entry;
use super::value::Value;
use super::Interp;
use crate::libraries::processes::launchers::{ForkingCall, Given, WorkersRun};
use crate::source::Span;

impl<'m, A: Analysis> Interp<'m, A> {
    /// A call of a `ForksWorkers` row: workers forked now run the caller's code; without
    /// workers, the code runs here.
    pub(super) fn forking_call(
        &mut self,
        span: Span,
        call: &'static ForkingCall,
        args: &Args<'m>,
    ) -> Value {
        let (param, handed) = match call.runs {
            WorkersRun::Callable(p) => (p, Handed::Task),
            WorkersRun::ItemsOf(p) => (p, Handed::Dataset),
        };
        let Some((code, code_span)) = args.param(param).map(|(v, e)| (v.clone(), e.span)) else {
            return passthrough(args);
        };
        let entries: Vec<Entry> = match call.runs {
            WorkersRun::Callable(_) => vec![(code.clone(), vec![Value::Unknown])],
            WorkersRun::ItemsOf(_) => self.dataset_entries(&code, &Value::None),
        };
        if !self.forks(call, args) {
            for (f, a) in entries {
                self.call_plain(&f, a);
            }
            return passthrough(args);
        }
        let start = self.resolve_start(call.layer, None);
        self.hand_over(
            &[(code.clone(), code_span, handed)],
            call.layer,
            (start.method, start.source),
        );
        let described = self.describe(&code);
        let parent = self.proc_ref().cuda.clone();
        self.run_child(span, &call.launcher, start, parent, entries, described);
        passthrough(args)
    }

    /// Whether the call's arguments ask for worker processes.
    fn forks(&self, call: &ForkingCall, args: &Args<'m>) -> bool {
        let several = match args.param(call.workers) {
            None => call.default > call.above,
            Some((Value::None, _)) => false,
            Some((Value::Int(n), _)) => *n > call.above,
            Some(_) => true,
        };
        let asked = match call.only_with {
            None => true,
            Some((p, Given::True)) => matches!(args.param(p), Some((Value::Bool(true), _))),
            Some((p, Given::Str(s))) => {
                matches!(args.param(p), Some((Value::Str(v), _)) if &**v == s)
            }
        };
        several && asked
    }
}
