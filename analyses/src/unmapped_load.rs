//! GPU009's analysis: a checkpoint loaded without `map_location` in a process that is one of
//! several GPU workers (a rank, a child started per GPU). The tensors go back to the device they
//! were saved from, cuda:0 as a rule, so every worker piles onto GPU 0. Where the process narrowed
//! its visible GPUs first, "cuda:0" is its own GPU: silent. A load that one rank alone runs
//! (`if rank == 0:`) piles nothing up: silent.

use std::sync::Arc;

use gpulint_core::analysis::{Analysis, Context, ProcessEnd};
use gpulint_core::effect::{Backend, Effect, Launcher, PerGpu};
use gpulint_core::source::{FileId, Span};

#[derive(Clone, Debug, PartialEq)]
pub struct UnmappedLoadFact {
    /// The load.
    pub span: Span,
    /// What the load is (`torch.load`, `load_from_checkpoint`), for messages.
    pub what: Arc<str>,
    /// Where this process showed it is one worker of several, if an effect says so (a device of
    /// its own, a process group); `None`: a rank read or a per-GPU child start.
    pub worker_sign: Option<Span>,
    /// The `None` the load passes as its mapping, if it passes one.
    pub none_given: Option<Span>,
}

/// A load: where, what, the file it names, and the `None` it passes as its mapping.
type Load = (Span, Arc<str>, Option<Arc<str>>, Option<Span>);

#[derive(Clone, Debug, Default)]
pub struct UnmappedLoad {
    loads: Vec<Load>,
    /// Checkpoints saved: the source file that saves, the file saved to, and whether what was
    /// saved holds no CUDA tensor.
    saved: Vec<(FileId, Arc<str>, bool)>,
    /// Visibility narrowed to this worker's GPUs: cuda:0 is its own.
    narrowed: bool,
    /// Where it chose a device of its own or joined a process group.
    worker_sign: Option<Span>,
    /// The kind of child this process is, if it is one, where it was started, and whether its
    /// parent started several alike (in a loop or a comprehension).
    child: Option<(&'static Launcher, Span, bool)>,
}

impl UnmappedLoad {
    /// Whether the load at `load` runs in one of several GPU workers: a child made to run on a
    /// GPU (`mp.spawn`, a `Process` per GPU, started in a loop; one `Process` is one worker, and
    /// its load piles nothing up), or a process that picked a device of its own or
    /// joined a GPU process group in the same file as the load. Reading `RANK` alone is not
    /// enough (libraries read it at import in every process), a loader's or a pool's workers are
    /// not per GPU, and a library's loaders far from where the job is set up read files whose
    /// devices the library chose (per-rank shards, CPU state): the same file keeps to code that
    /// knows it runs per GPU.
    fn one_per_gpu(&self, end: &ProcessEnd, load: Span) -> bool {
        let child_per_gpu = end.per_worker
            && self.child.is_some_and(|(launcher, start, repeated)| {
                let per_gpu = match launcher.per_gpu {
                    PerGpu::Always => true,
                    PerGpu::WhenRepeated => repeated,
                    PerGpu::Never => false,
                };
                per_gpu && start.file == load.file
            });
        child_per_gpu || self.worker_sign.is_some_and(|s| s.file == load.file)
    }

    /// Whether the file a load reads is saved in the same source file, and only ever from host
    /// values: `torch.load` restores host tensors to the host.
    fn saved_from_host(&self, load: &Load) -> bool {
        let Some(file) = &load.2 else {
            return false;
        };
        let mut saves = self
            .saved
            .iter()
            .filter(|(src, f, _)| *src == load.0.file && f == file)
            .peekable();
        saves.peek().is_some() && saves.all(|(_, _, host)| *host)
    }
}

impl Analysis for UnmappedLoad {
    type Facts = Vec<UnmappedLoadFact>;

    fn effect(&mut self, effect: &Effect, cx: &Context, _: &mut Self::Facts) {
        match effect {
            Effect::ChildStarted(child) => {
                self.child = Some((child.launcher, child.span, child.repeated))
            }
            Effect::CheckpointSaved {
                span,
                file,
                host_only,
            } => {
                let save = (span.file, file.clone(), *host_only);
                if !self.saved.contains(&save) {
                    self.saved.push(save);
                }
            }
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
            Effect::UnmappedLoad {
                span,
                what,
                file,
                none_given,
            } if !self.narrowed && !cx.one_rank && !self.loads.iter().any(|(s, ..)| s == span) => {
                self.loads
                    .push((*span, what.clone(), file.clone(), *none_given));
            }
            _ => {}
        }
    }

    fn join(&mut self, other: Self) {
        for load in other.loads {
            if !self.loads.iter().any(|(s, ..)| *s == load.0) {
                self.loads.push(load);
            }
        }
        for save in other.saved {
            if !self.saved.contains(&save) {
                self.saved.push(save);
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
        for load in &self.loads {
            let (span, what, _, none_given) = load;
            let span = *span;
            if self.one_per_gpu(end, span)
                && !self.saved_from_host(load)
                && !facts.iter().any(|f: &UnmappedLoadFact| f.span == span)
            {
                facts.push(UnmappedLoadFact {
                    span,
                    what: what.clone(),
                    worker_sign: self.worker_sign,
                    none_given: *none_given,
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
            file: Some("path".into()),
            none_given: None,
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
    fn a_load_on_one_rank_only_is_silent() {
        let mut a = UnmappedLoad::default();
        let mut facts = Vec::new();
        let one_rank = Context {
            one_rank: true,
            ..Context::default()
        };
        a.effect(&chooses(), &Context::default(), &mut facts);
        a.effect(&load(3), &one_rank, &mut facts);
        a.clone().finish(&worker_end(true), &mut facts);
        assert!(facts.is_empty());
        a.effect(&load(5), &Context::default(), &mut facts);
        a.finish(&worker_end(true), &mut facts);
        assert_eq!(facts.len(), 1);
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
    fn a_file_saved_here_from_host_values_only_is_silent() {
        let save = |host_only| Effect::CheckpointSaved {
            span: at(9),
            file: "path".into(),
            host_only,
        };
        // The save may come after the load in program order: the other branch of an `if`.
        assert!(run(&[chooses(), load(3), save(true)], true).is_empty());
        assert_eq!(run(&[chooses(), load(3), save(false)], true).len(), 1);
        assert_eq!(
            run(&[chooses(), save(true), save(false), load(3)], true).len(),
            1
        );
    }

    #[test]
    fn a_child_started_in_another_file_is_no_sign() {
        let started = |file| {
            let mut e = crate::testing::child_started(
                &crate::testing::PROCESS,
                gpulint_core::effect::StartMethod::Spawn,
                0,
            );
            if let Effect::ChildStarted(c) = &mut e {
                c.span = Span::new(FileId(file), 0, 1);
            }
            e
        };
        assert!(run(&[started(1), load(3)], true).is_empty());
        assert_eq!(run(&[started(0), load(3)], true).len(), 1);
    }

    #[test]
    fn one_process_started_once_is_one_worker() {
        let mut once = crate::testing::child_started(
            &crate::testing::PROCESS,
            gpulint_core::effect::StartMethod::Spawn,
            0,
        );
        if let Effect::ChildStarted(c) = &mut once {
            c.repeated = false;
        }
        assert!(run(&[once, load(3)], true).is_empty());
        // A device it picks itself still makes it one of several.
        let mut once = crate::testing::child_started(
            &crate::testing::PROCESS,
            gpulint_core::effect::StartMethod::Spawn,
            0,
        );
        if let Effect::ChildStarted(c) = &mut once {
            c.repeated = false;
        }
        assert_eq!(run(&[once, chooses(), load(3)], true).len(), 1);
    }

    #[test]
    fn a_pool_worker_counts_only_once_it_chose_a_device() {
        let mut a = UnmappedLoad {
            child: Some((&crate::testing::POOL, at(0), true)),
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
