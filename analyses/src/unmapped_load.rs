//! GPU009's analysis: a checkpoint loaded without `map_location` in a process that is one of
//! several GPU workers (a rank, a child started per GPU). The tensors go back to the device they
//! were saved from, cuda:0 as a rule, so every worker piles onto GPU 0. Where the process narrowed
//! its visible GPUs first, "cuda:0" is its own GPU: silent.

use std::sync::Arc;

use gpulint_core::analysis::{Analysis, Context, ProcessEnd};
use gpulint_core::effect::{Backend, ChildKind, Effect};
use gpulint_core::source::Span;

#[derive(Clone, Debug, PartialEq)]
pub struct UnmappedLoadFact {
    /// The load.
    pub span: Span,
    /// What the load is (`torch.load`, `load_from_checkpoint`), for messages.
    pub what: Arc<str>,
    /// Where this process showed it is one worker of several, if an effect says so (a device of
    /// its own, a process group); `None`: a rank read or a per-GPU child start.
    pub worker_sign: Option<Span>,
}

#[derive(Clone, Debug, Default)]
pub struct UnmappedLoad {
    loads: Vec<(Span, Arc<str>)>,
    /// Visibility narrowed to this worker's GPUs: cuda:0 is its own.
    narrowed: bool,
    /// Where it chose a device of its own or joined a process group.
    worker_sign: Option<Span>,
    /// The kind of child this process is, if it is one.
    child: Option<ChildKind>,
}

impl UnmappedLoad {
    /// Whether the load at `load` runs in one of several GPU workers: a child made to run on a
    /// GPU (`mp.spawn`, a `Process` per GPU), or a process that picked a device of its own or
    /// joined a GPU process group in the same file as the load. Reading `RANK` alone is not
    /// enough (libraries read it at import in every process), a loader's or a pool's workers are
    /// not per GPU, and a library's loaders far from where the job is set up read files whose
    /// devices the library chose (per-rank shards, CPU state): the same file keeps to code that
    /// knows it runs per GPU.
    fn one_per_gpu(&self, end: &ProcessEnd, load: Span) -> bool {
        let child_per_gpu = end.per_worker
            && matches!(
                self.child,
                Some(ChildKind::ProcessStart | ChildKind::StartProcesses)
            );
        child_per_gpu || self.worker_sign.is_some_and(|s| s.file == load.file)
    }
}

impl Analysis for UnmappedLoad {
    type Facts = Vec<UnmappedLoadFact>;

    fn effect(&mut self, effect: &Effect, _: &Context, _: &mut Self::Facts) {
        match effect {
            Effect::ChildStarted(child) => self.child = Some(child.kind),
            Effect::DeviceBound {
                binding: gpulint_core::effect::Binding::Narrowed,
                ..
            } => self.narrowed = true,
            // A device index that only a name suggests (`tensor.device`) is no sign: a device
            // picked by a call, or a GPU process group, is.
            Effect::DeviceBound {
                span,
                chooses: true,
                ..
            }
            | Effect::ProcessGroupCreated {
                span,
                backend: Backend::Nccl | Backend::Default,
                ..
            } => {
                self.worker_sign.get_or_insert(*span);
            }
            Effect::UnmappedLoad { span, what }
                if !self.narrowed && !self.loads.iter().any(|(s, _)| s == span) =>
            {
                self.loads.push((*span, what.clone()));
            }
            _ => {}
        }
    }

    fn join(&mut self, other: Self) {
        for load in other.loads {
            if !self.loads.iter().any(|(s, _)| *s == load.0) {
                self.loads.push(load);
            }
        }
        self.narrowed |= other.narrowed;
        self.worker_sign = self.worker_sign.or(other.worker_sign);
        self.child = self.child.or(other.child);
    }

    /// A forked child inherits the environment, and so a narrowed visibility.
    fn forked(&self) -> Self {
        UnmappedLoad {
            narrowed: self.narrowed,
            ..Self::default()
        }
    }

    fn finish(self, end: &ProcessEnd, facts: &mut Self::Facts) {
        for (span, what) in &self.loads {
            let span = *span;
            if self.one_per_gpu(end, span)
                && !facts.iter().any(|f: &UnmappedLoadFact| f.span == span)
            {
                facts.push(UnmappedLoadFact {
                    span,
                    what: what.clone(),
                    worker_sign: self.worker_sign,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{at, facts_of, worker_end};
    use gpulint_core::effect::Binding;

    fn load(start: u32) -> Effect {
        Effect::UnmappedLoad {
            span: at(start),
            what: "torch.load".into(),
        }
    }

    fn run(effects: &[Effect], per_worker: bool) -> Vec<UnmappedLoadFact> {
        facts_of::<UnmappedLoad>(effects, worker_end(per_worker))
    }

    fn chooses() -> Effect {
        Effect::DeviceBound {
            span: at(1),
            binding: Binding::Call,
            chooses: true,
        }
    }

    #[test]
    fn a_rank_that_loads_unmapped_is_reported_once() {
        let facts = run(&[chooses(), load(3), load(3)], true);
        assert_eq!(facts.len(), 1);
        assert_eq!(facts[0].span, at(3));
    }

    #[test]
    fn a_rank_read_alone_or_a_narrowed_worker_is_silent() {
        assert!(run(&[load(3)], true).is_empty());
        let narrowed = Effect::DeviceBound {
            span: at(1),
            binding: Binding::Narrowed,
            chooses: false,
        };
        assert!(run(&[narrowed, chooses(), load(3)], true).is_empty());
    }

    #[test]
    fn a_device_picked_in_another_file_is_no_sign() {
        let elsewhere = Effect::DeviceBound {
            span: Span::new(gpulint_core::source::FileId(1), 0, 1),
            binding: Binding::Call,
            chooses: true,
        };
        assert!(run(&[elsewhere, load(3)], true).is_empty());
    }

    #[test]
    fn a_pool_worker_counts_only_once_it_chose_a_device() {
        let mut a = UnmappedLoad {
            child: Some(ChildKind::Pool),
            ..UnmappedLoad::default()
        };
        let mut facts = Vec::new();
        a.effect(&load(3), &Context::default(), &mut facts);
        let end = ProcessEnd {
            per_worker: true,
            ..ProcessEnd::default()
        };
        a.clone().finish(&end, &mut facts);
        assert!(facts.is_empty());
        a.effect(&chooses(), &Context::default(), &mut facts);
        a.finish(&end, &mut facts);
        assert_eq!(facts.len(), 1);
    }
}
