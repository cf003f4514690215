//! Shared plumbing for gpulint's test doubles of libcuda, libnvidia-ml and libnccl.
//!
//! Each double links its own copy of this crate, so nothing here may hold state that the
//! libraries must share: everything shared between the libraries and between processes goes
//! through files under the state folder (see `layout`).

pub mod config;
pub mod cuda_client;
pub mod fail;
pub mod identity;
pub mod layout;
pub mod pids;
pub mod testkit;

pub use config::Config;
