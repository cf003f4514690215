//! Test double for libcuda, the CUDA driver API (built as libgpudouble_cuda.so; a script links
//! it as libcuda.so / libcuda.so.1 on LD_LIBRARY_PATH). It follows the documented driver
//! behaviour of the real driver (cuda.h and NVIDIA's notes on fork): the cuInit pid and fork, primary contexts, per-thread
//! current context, memory accounting shared through the state folder, timing events, error
//! names and texts. Settings come from the environment (tests/doubles/README.md).
//!
//! "Device memory" is host memory, so other doubles (NCCL) can read and write it directly.

mod api;
mod driver;
mod errors;
mod events;
mod memory;
mod types;

pub use api::*;
pub use types::*;

#[cfg(test)]
mod tests;
