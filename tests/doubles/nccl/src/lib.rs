//! Test double for libnccl, built as libgpudouble_nccl.so; a script links it as libnccl.so on
//! LD_LIBRARY_PATH (cudarc opens only that name). Ranks meet in a rendezvous folder named by the
//! unique id, find their device through the libcuda double (dlopen), and refuse two ranks on
//! one GPU with the text of the configured NCCL version. All-reduce runs synchronously through
//! files. Settings: tests/doubles/README.md.

mod api;
mod comm;
mod last_error;
mod reduce;
mod rendezvous;
mod types;

pub use api::*;
pub use types::*;

#[cfg(test)]
mod tests;
