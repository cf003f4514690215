//! Library calls that fork worker processes of their own, each described by its row
//! (`ForkingCall`): whether this call forks, how its workers start and what they run.

use gpulint_core::analysis::Analysis;
use gpulint_core::effect::{CudaInitSite, Effect, Handed, Init};

use super::calls::{passthrough, Args};
use super::value::Value;
use super::Interp;
use crate::libraries::processes::launchers::{ForkingCall, Given, WorkersRun};
use crate::libraries::processes::StartMethod;
use crate::source::Span;

impl<'m, A: Analysis> Interp<'m, A> {
    /// A call of a `ForksWorkers` row: workers forked now run the caller's code (or the
    /// library's); without workers, the caller's code runs here.
    pub(super) fn forking_call(
        &mut self,
        span: Span,
        call: &'static ForkingCall,
        args: &Args<'m>,
    ) -> Value {
        let handed = match call.runs {
            WorkersRun::Callable(p) => Some((p, Handed::Task)),
            WorkersRun::ItemsOf(p) => Some((p, Handed::Dataset)),
            WorkersRun::Library { .. } => None,
        };
        let code = handed.map(|(p, h)| (args.param(p).map(|(v, e)| (v.clone(), e.span)), h));
        let (entries, described) = match (&code, call.runs) {
            (Some((None, _)), _) => return passthrough(args),
            (Some((Some((v, _)), _)), WorkersRun::Callable(_)) => {
                (vec![(v.clone(), vec![Value::Unknown])], self.describe(v))
            }
            (Some((Some((v, _)), _)), _) => {
                (self.dataset_entries(v, &Value::None), self.describe(v))
            }
            (None, WorkersRun::Library { what, .. }) => (Vec::new(), what.to_string()),
            (None, _) => return passthrough(args),
        };
        if !self.forks(call, args) {
            for (f, a) in entries {
                self.call_plain(&f, a);
            }
            return passthrough(args);
        }
        let mut start = self.resolve_start(call.layer, None);
        if let Some((Some((v, at)), h)) = code {
            self.hand_over(&[(v, at, h)], call.layer, (start.method, start.source));
        }
        if let WorkersRun::Library { package, what } = call.runs {
            start.prelude = self.library_in_child(span, package, what, start.method);
        }
        let parent = self.proc_ref().cuda.clone();
        self.run_child(span, &call.launcher, start, parent, entries, described);
        passthrough(args)
    }

    /// What a forked worker running `package`'s code does first: compute on the GPU, where the
    /// parent put the package.
    fn library_in_child(
        &self,
        span: Span,
        package: &str,
        what: &str,
        method: StartMethod,
    ) -> Vec<Effect> {
        let on_gpu = self
            .proc_ref()
            .gpu_libraries
            .iter()
            .any(|p| &**p == package);
        if method != StartMethod::Fork || !on_gpu {
            return Vec::new();
        }
        vec![Effect::CudaInit {
            site: CudaInitSite {
                span,
                level: Init::Context,
                what: format!("{what} computes on the GPU, where the parent put `{package}`")
                    .into(),
            },
            fails_in_child: true,
        }]
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
