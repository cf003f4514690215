//! One analysis per hazard. Each file owns its per-process state (what it must remember between
//! effects), how that state merges at branches, what a forked child starts with, and the facts it
//! emits; rules read the facts. Analyses know effects, never a library or a source language.
//!
//! [`Analyses`] bundles them for the frontends: adding an analysis is one line in the list below.

pub mod fork;
pub mod global_rank;
pub mod implicit_device;
pub mod ipc;
pub mod main_guard;
pub mod once_global;
pub mod pinned;
pub mod process_group;
pub mod stale_globals;
pub mod start_method;
#[cfg(test)]
mod testing;
pub mod thread_device;
pub mod threadpool;
pub mod unmapped_load;
pub mod unserializable;
pub mod visible_devices;

use gpulint_core::analysis::{Analysis, Context, ProcessEnd};
use gpulint_core::effect::Effect;

/// Declares the bundle of analyses and the facts they emit together; each method calls every
/// analysis in turn.
macro_rules! analyses {
    ($($field:ident: $analysis:ty),* $(,)?) => {
        /// The state of every analysis in one simulated process.
        #[derive(Clone, Debug, Default)]
        pub struct Analyses {
            $(pub $field: $analysis,)*
        }

        /// Everything the analyses found with one file as the main program.
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct Facts {
            $(pub $field: <$analysis as Analysis>::Facts,)*
        }

        impl Analysis for Analyses {
            type Facts = Facts;

            fn effect(&mut self, effect: &Effect, cx: &Context, facts: &mut Facts) {
                $(self.$field.effect(effect, cx, &mut facts.$field);)*
            }

            fn join(&mut self, other: Self) {
                $(self.$field.join(other.$field);)*
            }

            fn attach(&mut self, imported: &Self) {
                $(self.$field.attach(&imported.$field);)*
            }

            fn forked(&self) -> Self {
                Analyses { $($field: self.$field.forked(),)* }
            }

            fn spawned(&self) -> Self {
                Analyses { $($field: self.$field.spawned(),)* }
            }

            fn imports_like_clean(&self) -> bool {
                true $(&& self.$field.imports_like_clean())*
            }

            fn finish(self, end: &ProcessEnd, facts: &mut Facts) {
                $(self.$field.finish(end, &mut facts.$field);)*
            }
        }
    };
}

analyses! {
    forks: fork::ForkAfterInit,
    pinned_globals: pinned::PinnedGlobal,
    process_groups: process_group::GroupBeforeBinding,
    unguarded: main_guard::MainGuard,
    start_method_fixed: start_method::StartMethodFixed,
    late_visibility: visible_devices::VisibleDevices,
    unmapped_loads: unmapped_load::UnmappedLoad,
    implicit_devices: implicit_device::ImplicitDevice,
    global_rank_devices: global_rank::GlobalRankDevice,
    unserializable: unserializable::SpawnPickling,
    stale_globals: stale_globals::StaleGlobals,
    cuda_sent: ipc::CudaAcrossProcesses,
    threadpool_forks: threadpool::ForkAfterThreads,
    thread_devices: thread_device::ThreadDevice,
    once_globals: once_global::OnceGlobal,
}
