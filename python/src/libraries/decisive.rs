//! Which rows can complete a hazard on their own: a process or thread started, a start method set
//! or fixed, a process group or collective, a device bound, a rank read, a checkpoint loaded, an
//! environment variable with a role. The other rows only change state (CUDA initialised, a tensor
//! made) that no rule reports unless one of these follows. An entry point that can reach none of
//! them is not run (see `crate::reach`), so each new kind of row must say which it is: the matches
//! below have no wildcard.

use std::sync::OnceLock;

use rustc_hash::FxHashSet;

use super::{AttributeBehaviour, Behaviour, MethodBehaviour, Receiver};

impl Behaviour {
    /// Whether a call of this row can complete a hazard, whatever the process did before.
    pub fn decisive(&self) -> bool {
        match self {
            Behaviour::Alias(to) => super::lookup(to).is_some_and(|(b, _)| b.decisive()),
            // What the call returns has a decisive method (`flask.Flask().route`).
            Behaviour::Returns(to) => {
                decisive_instances().contains(to)
                    || super::lookup(to).is_some_and(|(b, _)| b.decisive())
            }
            Behaviour::BindsDevice { .. }
            | Behaviour::BindsDeviceUnderLauncher { .. }
            | Behaviour::ReadsRank
            | Behaviour::ReadsGlobalRank
            | Behaviour::ProcessGroup { .. }
            | Behaviour::Subgroup { .. }
            | Behaviour::Collective { .. }
            | Behaviour::ForkedTask
            | Behaviour::HandlesRequests
            | Behaviour::ParallelEngine { .. }
            | Behaviour::StartsChildren { .. }
            | Behaviour::GetContext { .. }
            | Behaviour::FixesStartMethod { .. }
            | Behaviour::MakesCarrier(_)
            | Behaviour::SetStartMethod { .. }
            | Behaviour::RunsCommand { .. }
            | Behaviour::Loader { .. }
            | Behaviour::ForkingDataset
            | Behaviour::NarrowsVisibility { .. }
            | Behaviour::ForksWorkers(_)
            | Behaviour::StartsThread { .. } => true,
            // Environment reads and writes matter through the variable's name, which is a
            // decisive word of its own (`env_rows`).
            // A checkpoint loaded without a mapping matters in a worker of several GPUs, which
            // a decisive call shows (a rank, a device, a group, a child) or the process was
            // before the entry (then every entry runs).
            Behaviour::LoadsTensors { .. }
            | Behaviour::LoadsModel { .. }
            | Behaviour::LoadsOnProviders { .. }
            | Behaviour::InitsCuda { .. }
            | Behaviour::CudaTensorType
            | Behaviour::Factory { .. }
            | Behaviour::Computes
            | Behaviour::LimitsHostThreads { .. }
            | Behaviour::CreatesParameters
            | Behaviour::DeviceValue { .. }
            | Behaviour::CudaDevice { .. }
            | Behaviour::SetsDefaultDevice { .. }
            | Behaviour::SavesTensors { .. }
            | Behaviour::Object
            | Behaviour::Answers(_)
            | Behaviour::Waits
            | Behaviour::EndsProcess
            | Behaviour::LibraryDataset { .. }
            | Behaviour::IndexesArguments
            | Behaviour::DictOfKeywords
            | Behaviour::Partial
            | Behaviour::Defers
            | Behaviour::Compose { .. }
            | Behaviour::ReadsEnv { .. }
            | Behaviour::WritesEnv { .. }
            | Behaviour::RemovesEnv { .. }
            | Behaviour::Environ
            | Behaviour::Converts { .. }
            | Behaviour::ToHost
            | Behaviour::Iterates(_)
            | Behaviour::CallsArgument(_)
            | Behaviour::Inspects
            | Behaviour::Memoises
            | Behaviour::EntersAtYield
            | Behaviour::Unpicklable => false,
        }
    }
}

impl MethodBehaviour {
    /// Whether calling this method can complete a hazard.
    pub fn decisive(&self) -> bool {
        match self {
            MethodBehaviour::BindsDevice { .. }
            | MethodBehaviour::StartsProcess
            | MethodBehaviour::StartsThread
            | MethodBehaviour::RunsInWorkers(_)
            | MethodBehaviour::MapsDataset { .. }
            | MethodBehaviour::Sends
            | MethodBehaviour::MakesProxy
            | MethodBehaviour::ForksWorkers(_) => true,
            MethodBehaviour::MovesArgumentsToDevice
            | MethodBehaviour::MovesToCuda { .. }
            | MethodBehaviour::MovesTo { .. }
            | MethodBehaviour::CreatesContext
            | MethodBehaviour::InitsCuda { .. }
            | MethodBehaviour::PinsHostMemory
            | MethodBehaviour::ToCpu
            | MethodBehaviour::State
            | MethodBehaviour::LoadsState
            | MethodBehaviour::MovesToCpu
            | MethodBehaviour::Metadata
            | MethodBehaviour::Parameters
            | MethodBehaviour::Waits => false,
        }
    }
}

impl Receiver {
    /// Whether only a decisive row makes a receiver of this kind (a process, a pool, a queue, a
    /// thread, a launcher's device owner): where the code names how it was made, that name is
    /// decisive already, so the method's own name need not be.
    fn made_by_decisive_rows(self) -> bool {
        match self {
            Receiver::Process
            | Receiver::Pool
            | Receiver::Executor
            | Receiver::Channel
            | Receiver::Manager
            | Receiver::Thread
            | Receiver::DeviceOwner
            // A dataset's `map` forks where the call passes `num_proc` (a decisive keyword), or
            // on a `ForkingDataset` (a decisive row).
            | Receiver::Dataset => true,
            Receiver::Any | Receiver::Opaque | Receiver::CudaObject => false,
        }
    }
}

impl AttributeBehaviour {
    /// Whether reading this attribute can complete a hazard (a rank read).
    pub fn decisive(&self) -> bool {
        match self {
            AttributeBehaviour::RankInJob | AttributeBehaviour::RankOnNode => true,
            AttributeBehaviour::Device | AttributeBehaviour::Metadata => false,
        }
    }
}

/// Whether a call of the library function `qualified` can complete a hazard.
pub fn decisive_call(qualified: &str) -> bool {
    super::lookup(qualified).is_some_and(|(b, _)| b.decisive())
}

/// The instances (`flask.Flask()`) some of whose method rows are decisive, built once.
fn decisive_instances() -> &'static FxHashSet<&'static str> {
    static INSTANCES: OnceLock<FxHashSet<&'static str>> = OnceLock::new();
    INSTANCES.get_or_init(|| {
        super::rows()
            // Neither kind of row that looks another up (which would ask this set again).
            .filter(|r| !matches!(r.does, Behaviour::Returns(_) | Behaviour::Alias(_)))
            .filter(|r| r.does.decisive())
            .filter_map(|r| r.name.rfind("().").map(|i| &r.name[..i + 2]))
            .collect()
    })
}

/// The method and attribute names whose call or read on a value of any origin can complete a
/// hazard (`.map(num_proc=...)` on a dataset, a launcher's `.process_index`), built once. A
/// method of a receiver only a decisive row makes (a pool's `.map`) is not among them: the code
/// that made the receiver names that row.
pub fn decisive_members() -> &'static FxHashSet<&'static str> {
    static WORDS: OnceLock<FxHashSet<&'static str>> = OnceLock::new();
    WORDS.get_or_init(|| {
        let methods = super::method_rows()
            .filter(|r| r.does.decisive() && !r.on.made_by_decisive_rows())
            .map(|r| r.name);
        let attributes = super::attribute_rows()
            .filter(|r| r.does.decisive())
            .map(|r| r.name);
        methods.chain(attributes).collect()
    })
}

/// The environment variables with a role: a string that names one may be a key of
/// `os.environ`, built once.
pub fn decisive_strings() -> &'static FxHashSet<&'static str> {
    static WORDS: OnceLock<FxHashSet<&'static str>> = OnceLock::new();
    WORDS.get_or_init(|| super::env_rows().iter().map(|r| r.name).collect())
}

/// The keywords that make a method of any value decisive (`num_proc=` of a dataset's `map`).
pub fn decisive_keywords() -> &'static FxHashSet<&'static str> {
    static WORDS: OnceLock<FxHashSet<&'static str>> = OnceLock::new();
    WORDS.get_or_init(|| {
        super::method_rows()
            .filter_map(|r| match r.does {
                MethodBehaviour::MapsDataset { num_proc, .. } => Some(num_proc.name),
                _ => None,
            })
            .collect()
    })
}
