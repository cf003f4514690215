//! Data loaders: a `DataLoader`'s workers, run as children once per loader, and what they are
//! handed (the dataset, `collate_fn`, `worker_init_fn`).

use std::sync::Arc;

use gpulint_core::analysis::Analysis;
use gpulint_core::effect::{ChildStart, Effect, Handed, Init};

use crate::libraries::processes::launchers;

use super::calls::Args;
use super::children::*;
use super::process::Process;
use super::value::Value;
use super::{Interp, Object};
use crate::libraries::processes::{Layer, StartMethod};
use crate::libraries::{torch, Behaviour};
use crate::model::Expr;
use crate::source::Span;

impl<'m, A: Analysis> Interp<'m, A> {
    /// `DataLoader(...)`: workers fork at each iteration; checked now if CUDA is already initialised
    /// (the state only moves forward), and again wherever it is iterated.
    pub(super) fn dataloader(&mut self, span: Span, does: Behaviour, args: &Args<'m>) -> Value {
        let Behaviour::Loader {
            dataset,
            num_workers,
            collate_fn,
            worker_init_fn,
            context,
            one_thread,
        } = does
        else {
            return Value::Unknown;
        };
        let value = |a: Option<(&Value, &Expr)>| a.map(|(v, _)| v.clone()).unwrap_or_default();
        let workers = match args.param(num_workers) {
            None | Some((Value::Int(0), _)) | Some((Value::None, _)) => false,
            Some((Value::Int(n), _)) => *n > 0,
            Some(_) => true,
        };
        let start = args.param(context).and_then(|(v, e)| match v {
            Value::Str(s) => StartMethod::parse(s).map(|m| (m, e.span)),
            Value::Context(_, m) => Some((*m, e.span)),
            _ => None,
        });
        let handed: Vec<(Value, Span, Handed)> = [
            (Some(dataset), Handed::Dataset),
            (collate_fn, Handed::CollateFn),
            (Some(worker_init_fn), Handed::WorkerInitFn),
        ]
        .into_iter()
        .filter_map(|(p, h)| args.param(p?).map(|(v, e)| (v.clone(), e.span, h)))
        .collect();
        if workers {
            let resolved = self.resolve_start(Layer::Multiprocessing, start);
            self.hand_over(
                &handed,
                Layer::Multiprocessing,
                (resolved.method, resolved.source),
            );
        }
        let loader = self.alloc(Object::Loader {
            span,
            dataset: value(args.param(dataset)),
            collate: value(collate_fn.and_then(|p| args.param(p))),
            worker_init: value(args.param(worker_init_fn)),
            workers,
            start,
            handed,
            one_thread,
            pins: None,
            child: None,
        });
        if workers && self.proc_ref().cuda.is_some() {
            if let Value::Object(id) = loader {
                self.loader_workers(id);
            }
        }
        loader
    }

    /// One `iter()` of a loader: its workers start (or, without workers, the dataset runs here).
    pub(super) fn iterate_loader(&mut self, id: super::value::ObjId, span: Span) -> Value {
        let Some(Object::Loader {
            workers,
            dataset,
            collate,
            pins,
            ..
        }) = self.world.object(id).cloned()
        else {
            return Value::Unknown;
        };
        self.iterate_pinning_loader(span, pins);
        if !workers {
            let entries = self.dataset_entries(&dataset, &collate);
            let mut batch = Value::Unknown;
            for (f, a) in entries {
                batch = self.call_plain(&f, a);
            }
            return batch;
        }
        let batch = self.loader_workers(id);
        if let Value::Cuda(_) = batch {
            self.cuda_event(
                span,
                Init::Context,
                "receiving CUDA tensors from the DataLoader's workers creates a context".into(),
                true,
            );
        }
        batch
    }

    /// Forks a loader's workers with the parent as it is now; returns the batch they yield.
    pub(super) fn loader_workers(&mut self, id: super::value::ObjId) -> Value {
        let Some(Object::Loader {
            span,
            dataset,
            collate,
            worker_init,
            start,
            handed,
            one_thread,
            child,
            ..
        }) = self.world.object(id).cloned()
        else {
            return Value::Unknown;
        };
        let start = Start {
            prelude: match one_thread {
                true => vec![Effect::HostThreadsLimited { span }],
                false => Vec::new(),
            },
            ..self.resolve_start(Layer::Multiprocessing, start)
        };
        if child.is_none() {
            self.hand_over(
                &handed,
                Layer::Multiprocessing,
                (start.method, start.source),
            );
        }
        let parent = self.proc_ref().cuda.clone();
        if let Some(cached) = child
            .as_ref()
            .and_then(|c| c.downcast_ref::<CachedChild<A>>())
        {
            // The same workers forked again, from the parent as it is now: a new start, and what
            // the workers did the first time.
            let mut process = cached.process.clone();
            let mut again = gpulint_core::analysis::Shared::<A>::default();
            again.effect(
                &Effect::ChildStarted(ChildStart {
                    span,
                    launcher: &launchers::DATA_LOADER,
                    start_method: start.method,
                    start_method_source: start.source,
                    parent_init: (start.method == StartMethod::Fork)
                        .then_some(parent)
                        .flatten(),
                    code: None,
                    at_module_scope: self.frames.is_empty(),
                    during_reimport: self.proc_ref().reimport,
                    other_layer_start: start.other_layer,
                    default_in_entry: start.default_in_entry,
                    made_by: None,
                    repeated: self.control.repeats(),
                }),
                &Default::default(),
                &mut self.facts,
            );
            again.join(cached.process.analyses.clone());
            process.analyses = again;
            let batch = cached.batch.clone();
            self.finish_process(process);
            return batch;
        }
        let mut entries = self.dataset_entries(&dataset, &collate);
        if !matches!(worker_init, Value::Unknown | Value::None) {
            entries.insert(0, (worker_init.clone(), vec![Value::Rank]));
        }
        let code = entries
            .iter()
            .map(|(f, _)| self.describe(f))
            .collect::<Vec<_>>()
            .join(", ");
        let has_collate = !matches!(collate, Value::Unknown | Value::None);
        let run = self.run_child(span, &launchers::DATA_LOADER, start, parent, entries, code);
        let batch = if has_collate {
            run.results.last().cloned()
        } else {
            run.results.first().cloned()
        };
        let batch = batch.unwrap_or_default();
        if let (Some(process), Some(Object::Loader { child, .. })) =
            (run.process, self.object_mut(id))
        {
            *child = Some(Arc::new(CachedChild {
                process,
                batch: batch.clone(),
            }));
        }
        batch
    }

    /// What a loader worker runs: the dataset's item access (or its transforms), then the collate.
    pub(super) fn dataset_entries(&self, dataset: &Value, collate: &Value) -> Vec<Entry> {
        let mut entries = Vec::new();
        match self.object(dataset) {
            Some(Object::Instance { class, .. }) => {
                let method = torch::DATASET_ITEM_METHODS
                    .iter()
                    .find_map(|m| self.find_method(*class, m));
                if let Some(f) = method {
                    entries.push((
                        Value::bound_method(f, dataset.clone()),
                        vec![Value::Unknown],
                    ));
                }
            }
            Some(Object::LibraryDataset { transforms }) => {
                entries.extend(transforms.iter().map(|t| (t.clone(), vec![Value::Unknown])));
            }
            Some(Object::ArgumentsDataset { .. }) => {
                entries.push((dataset.clone(), vec![Value::Unknown]));
            }
            _ => {}
        }
        if !matches!(collate, Value::Unknown | Value::None) {
            entries.push((collate.clone(), vec![Value::Unknown]));
        }
        entries
    }
}

/// A loader's workers as first run: their process at its end (before the analyses finished it),
/// and the batch they yield. Iterating the loader again forks them again with the same code.
pub(super) struct CachedChild<A> {
    process: Process<A>,
    batch: Value,
}
