//! Test double for libnvidia-ml (NVML), built as libgpudouble_nvml.so; a script links it as
//! libnvidia-ml.so.1 on LD_LIBRARY_PATH. It shows GPUDOUBLE_DEVICES devices in physical order
//! (NVML ignores CUDA_VISIBLE_DEVICES), with UUIDs, memory and running compute processes read
//! from the state folder that the libcuda double writes (tests/doubles/README.md).

mod api;
mod session;
mod types;

pub use api::*;
pub use types::*;

#[cfg(test)]
mod tests;
