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

/// Exports `gpudouble_marker()` from a double: it returns "gpulint test double", so a program can
/// tell that it loaded a double and not NVIDIA's library.
#[macro_export]
macro_rules! export_marker {
    () => {
        #[no_mangle]
        pub extern "C" fn gpudouble_marker() -> *const ::std::ffi::c_char {
            c"gpulint test double".as_ptr()
        }
    };
}
