//! Which GPU libraries this host has, checked before any call: cudarc panics when a library or
//! symbol is missing, so absence must be found out here and turned into a message.

use nvml_wrapper::Nvml;

/// The NVML library name nvml-wrapper opens.
pub const NVML_LIB: &str = "libnvidia-ml.so.1";

/// Every libcuda symbol the probe calls: cudarc panics on a missing one, so an old driver is
/// caught here.
pub const CUDA_SYMBOLS: &[&str] = &[
    "cuInit",
    "cuDriverGetVersion",
    "cuDeviceGetCount",
    "cuDeviceGet",
    "cuDeviceGetName",
    "cuDeviceGetUuid",
    "cuDeviceTotalMem_v2",
    "cuDevicePrimaryCtxRetain",
    "cuCtxSetCurrent",
    "cuCtxSynchronize",
    "cuMemAlloc_v2",
    "cuMemsetD8_v2",
    "cuMemcpyHtoD_v2",
    "cuMemcpyDtoH_v2",
    "cuEventCreate",
    "cuEventRecord",
    "cuEventSynchronize",
    "cuEventElapsedTime",
    "cuEventDestroy_v2",
    "cuGetErrorName",
    "cuGetErrorString",
];

/// Every libnccl symbol the probe calls (`ncclGetLastError` needs NCCL 2.13 or later).
pub const NCCL_SYMBOLS: &[&str] = &[
    "ncclGetVersion",
    "ncclGetUniqueId",
    "ncclCommInitRank",
    "ncclCommCuDevice",
    "ncclAllReduce",
    "ncclCommDestroy",
    "ncclGetErrorString",
    "ncclGetLastError",
];

/// The first of `symbols` that `lib` lacks.
pub fn missing_symbol(lib: &libloading::Library, symbols: &[&'static str]) -> Option<&'static str> {
    symbols.iter().copied().find(|name| {
        let c = format!("{name}\0");
        // SAFETY: looks a symbol up without calling it.
        unsafe { lib.get::<unsafe extern "C" fn()>(c.as_bytes()) }.is_err()
    })
}

/// The first libcuda symbol the probe needs that the loaded library lacks.
pub fn cuda_missing_symbol() -> Option<&'static str> {
    // SAFETY: the library is present (checked by the caller).
    missing_symbol(unsafe { cudarc::driver::sys::culib() }, CUDA_SYMBOLS)
}

/// The first libnccl symbol the probe needs that the loaded library lacks.
pub fn nccl_missing_symbol() -> Option<&'static str> {
    // SAFETY: the library is present (checked by the caller).
    missing_symbol(unsafe { cudarc::nccl::sys::culib() }, NCCL_SYMBOLS)
}

pub fn cuda_present() -> bool {
    // SAFETY: only tries to dlopen the candidate names.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

pub fn nccl_present() -> bool {
    // SAFETY: only tries to dlopen the candidate names.
    unsafe { cudarc::nccl::sys::is_culib_present() }
}

/// Where the dynamic loader looked, for "not found" messages.
pub fn search_path() -> String {
    let ld = std::env::var("LD_LIBRARY_PATH").unwrap_or_default();
    let ld = if ld.is_empty() {
        "LD_LIBRARY_PATH (unset)".to_string()
    } else {
        format!("LD_LIBRARY_PATH={ld}")
    };
    format!("searched {ld}, the ld.so cache and the system library folders")
}

/// The names cudarc tries for `lib` ("cuda", "nccl"), for messages: the usual two and a count.
pub fn names_tried(lib: &str) -> String {
    let others = cudarc::get_lib_name_candidates(lib).len().saturating_sub(1);
    format!("lib{lib}.so and lib{lib}.so.1 (and {others} other names cudarc tries) were")
}

/// NCCL is usually installed as libnccl.so.2 only, which cudarc never opens.
pub fn nccl_hint() -> Option<String> {
    // SAFETY: dlopen of a library name; dropped at once.
    let found = unsafe { libloading::Library::new("libnccl.so.2") }.is_ok();
    found.then(|| {
        "libnccl.so.2 is present but cudarc opens libnccl.so only: link libnccl.so to it in a folder on LD_LIBRARY_PATH".to_string()
    })
}

/// The path the loader opened `lib` from, found through one of its symbols with `dladdr`.
pub fn path_of(lib: &libloading::Library, symbol: &[u8]) -> Option<String> {
    // SAFETY: looks a symbol up without calling it; dladdr only reads the loader's tables.
    unsafe {
        let sym = lib.get::<unsafe extern "C" fn()>(symbol).ok()?;
        let addr = *sym as *const std::ffi::c_void;
        let mut info: libc::Dl_info = std::mem::zeroed();
        if libc::dladdr(addr, &mut info) == 0 || info.dli_fname.is_null() {
            return None;
        }
        Some(
            std::ffi::CStr::from_ptr(info.dli_fname)
                .to_string_lossy()
                .into_owned(),
        )
    }
}

pub fn cuda_path() -> Option<String> {
    // SAFETY: the library is present (checked by the caller).
    path_of(unsafe { cudarc::driver::sys::culib() }, b"cuInit\0").or_else(|| first_loadable("cuda"))
}

/// The first name cudarc tries for `lib` that loads: the library it uses, named when no symbol
/// of it can be looked up.
fn first_loadable(lib: &str) -> Option<String> {
    cudarc::get_lib_name_candidates(lib)
        .into_iter()
        // SAFETY: dlopen of a library name; dropped at once.
        .find(|name| unsafe { libloading::Library::new(name) }.is_ok())
}

pub fn nccl_path() -> Option<String> {
    // SAFETY: as above.
    path_of(unsafe { cudarc::nccl::sys::culib() }, b"ncclGetVersion\0")
        .or_else(|| first_loadable("nccl"))
}

/// Whether a loaded library is one of this project's test doubles (they export a marker).
pub fn is_double(lib: &libloading::Library) -> bool {
    // SAFETY: looks a symbol up without calling it.
    unsafe { lib.get::<unsafe extern "C" fn()>(b"gpudouble_marker\0") }.is_ok()
}

pub fn cuda_is_double() -> bool {
    // SAFETY: the library is present (checked by the caller); no call is made.
    is_double(unsafe { cudarc::driver::sys::culib() })
}

pub fn nccl_is_double() -> bool {
    // SAFETY: as above.
    is_double(unsafe { cudarc::nccl::sys::culib() })
}

/// NVML, or why not. nvml-wrapper's `Drop` panics when `nvmlShutdown` is missing, so a library
/// without it is refused here.
pub fn nvml() -> Result<(Nvml, bool, Option<String>), String> {
    // SAFETY: dlopen of a library name; symbols are only looked up.
    let lib = unsafe { libloading::Library::new(NVML_LIB) }
        .map_err(|_| format!("{NVML_LIB} not found ({})", search_path()))?;
    // SAFETY: looks a symbol up without calling it.
    if unsafe { lib.get::<unsafe extern "C" fn() -> i32>(b"nvmlShutdown\0") }.is_err() {
        return Err(format!("{NVML_LIB} has no nvmlShutdown"));
    }
    let double = is_double(&lib);
    let path = path_of(&lib, b"nvmlInit_v2\0");
    Nvml::init()
        .map(|n| (n, double, path))
        .map_err(|e| format!("NVML failed to start: {e}"))
}

/// `LD_LIBRARY_PATH` without its empty and relative entries, and those entries. The loader reads
/// an empty entry (`export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/x` with the variable unset) as the
/// working directory: a `libcuda.so` there would be loaded, and its constructor run.
pub fn absolute_entries(value: &std::ffi::OsStr) -> (std::ffi::OsString, Vec<String>) {
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    let mut kept: Vec<u8> = Vec::new();
    let mut dropped = Vec::new();
    for entry in value.as_bytes().split(|&b| b == b':') {
        if entry.first() == Some(&b'/') {
            if !kept.is_empty() {
                kept.push(b':');
            }
            kept.extend_from_slice(entry);
        } else if entry.is_empty() {
            dropped.push("'' (the working directory)".to_string());
        } else {
            dropped.push(format!("'{}'", String::from_utf8_lossy(entry)));
        }
    }
    (std::ffi::OsString::from_vec(kept), dropped)
}

/// Runs this command again with only the absolute entries of `LD_LIBRARY_PATH`, where it has
/// others: the loader reads the variable once, at start, so it cannot be changed in place. Returns
/// only where nothing needed to change (or the run again failed: the error).
pub fn reexec_with_absolute_library_path() -> std::io::Result<()> {
    use std::os::unix::process::CommandExt;
    let Some(value) = std::env::var_os("LD_LIBRARY_PATH") else {
        return Ok(());
    };
    let (kept, dropped) = absolute_entries(&value);
    if dropped.is_empty() {
        return Ok(());
    }
    eprintln!(
        "gpulint probe: LD_LIBRARY_PATH entries that are not absolute folders are not searched for the driver libraries: {}",
        dropped.join(", ")
    );
    let mut command = std::process::Command::new(std::env::current_exe()?);
    command.args(std::env::args_os().skip(1));
    if kept.is_empty() {
        command.env_remove("LD_LIBRARY_PATH");
    } else {
        command.env("LD_LIBRARY_PATH", kept);
    }
    Err(command.exec())
}

#[cfg(test)]
mod search_path_tests {
    use super::absolute_entries;
    use std::ffi::OsStr;

    #[test]
    fn only_absolute_folders_are_kept() {
        let (kept, dropped) = absolute_entries(OsStr::new(":/opt/cuda/lib64::lib:/usr/lib"));
        assert_eq!(kept, "/opt/cuda/lib64:/usr/lib");
        assert_eq!(dropped.len(), 3, "{dropped:?}");
        assert!(dropped[0].contains("working directory"));
        assert_eq!(dropped[2], "'lib'");
        let (kept, dropped) = absolute_entries(OsStr::new("/a:/b"));
        assert_eq!((kept.to_str().unwrap(), dropped.len()), ("/a:/b", 0));
    }
}
