//! The state of one simulated process: its CUDA state, start-method settings, device binding and
//! process group, and what it did that rules care about.

use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use crate::facts::{Backend, CudaInitSite, CudaUse};
use crate::libraries::processes::{Layer, StartMethod};
use crate::source::Span;

/// A process group created while the rank's device was not bound.
#[derive(Clone, Debug)]
pub struct PendingGroup {
    pub span: Span,
    pub backend: Backend,
    pub early_use: Option<CudaUse>,
    pub late_bind: Option<Span>,
    /// The function that created the group, and whether that same function bound the device late.
    pub creator: Option<crate::model::FuncId>,
    pub bound_by_creator: bool,
}

impl PendingGroup {
    /// The device is bound after the group, at `span`, by code running in function `by`.
    pub fn bind_late(&mut self, span: Span, by: Option<crate::model::FuncId>) {
        if self.late_bind.is_none() {
            self.late_bind = Some(span);
            self.bound_by_creator = by == self.creator;
        }
    }
}

/// A pinned global read by this process.
#[derive(Clone, Debug)]
pub struct PinnedUse {
    pub name: String,
    pub binding: Span,
    pub device: String,
    pub use_site: Span,
}

#[derive(Clone, Debug, Default)]
pub struct Process {
    pub id: u32,
    /// Where CUDA was first initialised in this process (inherited by a forked child).
    pub cuda: Option<CudaInitSite>,
    /// The fork fact this process reports its CUDA use into, if it is a forked child.
    pub fork_fact: Option<usize>,
    /// `set_start_method` calls executed so far, per layer.
    pub start_methods: Arc<HashMap<LayerKey, (StartMethod, Span)>>,
    /// `torch.set_default_device("cuda")` or a CUDA default tensor type.
    pub default_cuda: Option<Span>,
    /// Environment variables written by the program.
    pub env: Arc<HashMap<String, String>>,
    /// Where this process bound its device (`set_device`, narrowed visibility, Ray `num_gpus`).
    pub bound: Option<Span>,
    /// A worker process: a child, or a rank of a distributed job.
    pub per_worker: bool,
    /// Where this worker chose a device of its own.
    pub choice: Option<Span>,
    pub pinned_use: Option<PinnedUse>,
    pub group: Option<PendingGroup>,
    pub first_cuda_use: Option<CudaUse>,
    /// A spawned child re-importing the main module: `if __name__ == "__main__":` bodies do not run.
    pub reimport: bool,
    /// The process ended (`sys.exit`, `os._exit`, an `exec*`): nothing after runs.
    pub exited: bool,
    /// Analysed from a function nobody in the module calls: its caller may still bind the device.
    pub partial: bool,
}

/// `Layer` as a map key.
pub type LayerKey = u8;

pub fn layer_key(layer: Layer) -> LayerKey {
    match layer {
        Layer::Multiprocessing => 0,
        Layer::Multiprocess => 1,
    }
}

impl Process {
    /// Merges the state of another path through the same code (the other branch of an `if`).
    pub fn join(&mut self, other: Process) {
        // A path that became a forked child (`if os.fork(): sys.exit()` in a helper) stays one.
        if self.fork_fact.is_none() && other.fork_fact.is_some() {
            self.id = other.id;
            self.fork_fact = other.fork_fact;
            self.first_cuda_use = other.first_cuda_use.clone();
        }
        if self.cuda.is_none() {
            self.cuda = other.cuda;
        }
        if !Arc::ptr_eq(&self.start_methods, &other.start_methods) {
            for (k, v) in other.start_methods.iter() {
                if !self.start_methods.contains_key(k) {
                    Arc::make_mut(&mut self.start_methods).insert(*k, *v);
                }
            }
        }
        self.default_cuda = self.default_cuda.or(other.default_cuda);
        if !Arc::ptr_eq(&self.env, &other.env) {
            for (k, v) in other.env.iter() {
                if !self.env.contains_key(k) {
                    Arc::make_mut(&mut self.env).insert(k.clone(), v.clone());
                }
            }
        }
        self.bound = self.bound.or(other.bound);
        self.per_worker |= other.per_worker;
        self.choice = self.choice.or(other.choice);
        if self.pinned_use.is_none() {
            self.pinned_use = other.pinned_use;
        }
        match (&mut self.group, other.group) {
            (None, g) => self.group = g,
            (Some(mine), Some(theirs)) if mine.span == theirs.span => {
                if mine.early_use.is_none() {
                    mine.early_use = theirs.early_use;
                }
                if mine.late_bind.is_none() {
                    mine.late_bind = theirs.late_bind;
                    mine.bound_by_creator = theirs.bound_by_creator;
                }
            }
            _ => {}
        }
        if self.first_cuda_use.is_none() {
            self.first_cuda_use = other.first_cuda_use;
        }
        self.exited &= other.exited;
    }
}
