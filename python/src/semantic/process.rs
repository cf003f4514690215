//! The state of one simulated process as the interpreter models it: its CUDA state, start-method
//! settings, environment and device binding, and the states of the analyses that watch it.

use std::sync::Arc;

use gpulint_core::analysis::{Analysis, ProcessEnd, Shared};
use gpulint_core::effect::{CudaInitSite, EntryCallers, Nodes};
use rustc_hash::FxHashMap as HashMap;

use crate::libraries::processes::{Layer, StartMethod};
use crate::source::Span;

/// Every field is classified by the memo's replay key (`memo::same_process`, which destructures
/// this type without `..`): adding one does not compile until it says whether a replay must match
/// it.
#[derive(Clone, Debug, Default)]
pub struct Process<A> {
    pub id: u32,
    /// Where CUDA was first initialised in this process (inherited by a forked child).
    pub cuda: Option<CudaInitSite>,
    /// The fork point this process is a child of, when it became one mid-way (`if os.fork(): ...`).
    pub child_of: Option<Span>,
    /// `set_start_method` calls executed so far, per layer.
    pub start_methods: Arc<HashMap<LayerKey, (StartMethod, Span)>>,
    /// `torch.set_default_device("cuda")` or a CUDA default tensor type.
    pub default_cuda: Option<Span>,
    /// The packages that put themselves on the GPU in this process (a row of theirs initialised
    /// CUDA: thinc's `prefer_gpu`), by first name, inherited by a forked child: the package's
    /// own code that a worker runs (`WorkersRun::Library`) computes there.
    pub gpu_libraries: Arc<Vec<Arc<str>>>,
    /// Environment variables written by the program.
    pub env: Arc<HashMap<String, String>>,
    /// Where this process bound its device (`set_device`, narrowed visibility, Ray `num_gpus`).
    pub bound: Option<Span>,
    /// A device owner made before anything showed this process to be a rank (accelerate's
    /// `PartialState`, `TrainingArguments`): it binds the device under a launcher, which an NCCL
    /// group created later in the same process shows it runs under.
    pub launcher_binding: Option<Span>,
    /// A worker process: a child, or a rank of a distributed job.
    pub per_worker: bool,
    /// How the job this process belongs to was launched, where known: where, and on how many
    /// machines (inherited by its children, which run on the same machine).
    pub launch: Option<(Span, Nodes)>,
    /// A spawned child re-importing the main module: `if __name__ == "__main__":` bodies do not run.
    pub reimport: bool,
    /// A child that imported the program afresh (spawn, forkserver), or a forked child of one,
    /// once its start is done: its reads of module globals are reported.
    pub spawned: bool,
    /// The process ended (`sys.exit`, `os._exit`, an `exec*`): nothing after runs.
    pub exited: bool,
    /// Analysed from a function nobody in the module calls: its caller may still bind the device.
    pub partial: bool,
    /// Run as an entry point (a function analysed from where the main program ended), and whether
    /// the project calls it: its start methods are only those it set itself.
    pub entry: Option<EntryCallers>,
    /// What the analyses remember of this process, shared with the saved copies of this state
    /// until an effect changes it.
    pub analyses: Shared<A>,
}

/// `Layer` as a map key.
pub type LayerKey = u8;

pub fn layer_key(layer: Layer) -> LayerKey {
    match layer {
        Layer::Multiprocessing => 0,
        Layer::Multiprocess => 1,
    }
}

impl<A: Analysis> Process<A> {
    /// Merges the state of another path through the same code (the other branch of an `if`).
    pub fn join(&mut self, other: Process<A>) {
        // A path that became a forked child (`if os.fork(): sys.exit()` in a helper) stays one.
        if self.child_of.is_none() && other.child_of.is_some() {
            self.id = other.id;
            self.child_of = other.child_of;
        }
        self.merge_model(&other);
        self.exited &= other.exited;
        self.analyses.join(other.analyses);
    }

    /// Adds what a module's import did in a clean process (the import cache) to this process.
    pub fn attach(&mut self, imported: &Process<A>) {
        self.merge_model(imported);
        self.analyses.attach(&imported.analyses);
    }

    /// The process model's part of a join or attach: what either path did, the earlier first.
    fn merge_model(&mut self, other: &Process<A>) {
        if self.cuda.is_none() {
            self.cuda = other.cuda.clone();
        }
        if !Arc::ptr_eq(&self.start_methods, &other.start_methods) {
            for (k, v) in other.start_methods.iter() {
                if !self.start_methods.contains_key(k) {
                    Arc::make_mut(&mut self.start_methods).insert(*k, *v);
                }
            }
        }
        self.default_cuda = self.default_cuda.or(other.default_cuda);
        for p in other.gpu_libraries.iter() {
            if !self.gpu_libraries.contains(p) {
                Arc::make_mut(&mut self.gpu_libraries).push(p.clone());
            }
        }
        if !Arc::ptr_eq(&self.env, &other.env) {
            for (k, v) in other.env.iter() {
                if !self.env.contains_key(k) {
                    Arc::make_mut(&mut self.env).insert(k.clone(), v.clone());
                }
            }
        }
        self.bound = self.bound.or(other.bound);
        self.launcher_binding = self.launcher_binding.or(other.launcher_binding);
        self.per_worker |= other.per_worker;
        self.launch = self.launch.or(other.launch);
    }

    /// What the process's end tells the analyses.
    pub fn end(&self) -> ProcessEnd {
        ProcessEnd {
            partial: self.partial,
            per_worker: self.per_worker,
            cuda_initialised: self.cuda.is_some(),
        }
    }
}
