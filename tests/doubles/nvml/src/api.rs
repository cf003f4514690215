//! The exported C ABI (signatures as in nvml-wrapper-sys 0.10). Every function returns a
//! documented nvmlReturn_t: bodies run under catch_unwind, and GPUDOUBLE_FAIL is checked first.

// C names and C pointer contracts: the safety rules are nvml.h's.
#![allow(non_snake_case, clippy::missing_safety_doc)]

use std::ffi::{c_char, c_int, c_uint, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

use gpudouble_state::{fail, identity, layout, Config};

use crate::session::{self, config, index_of};
use crate::types::*;

fn run(symbol: &str, body: impl FnOnce() -> Result<(), nvmlReturn_t>) -> nvmlReturn_t {
    catch_unwind(AssertUnwindSafe(|| {
        if let Some(code) = fail::injected(symbol) {
            // Out-of-range codes would be undefined behaviour for nvml-wrapper's enum.
            return u32::try_from(code)
                .ok()
                .filter(|&c| returnable(c))
                .unwrap_or(NVML_ERROR_UNKNOWN);
        }
        body().err().unwrap_or(NVML_SUCCESS)
    }))
    .unwrap_or(NVML_ERROR_UNKNOWN)
}

unsafe fn put<T>(out: *mut T, value: T) -> Result<(), nvmlReturn_t> {
    if out.is_null() {
        return Err(NVML_ERROR_INVALID_ARGUMENT);
    }
    out.write(value);
    Ok(())
}

/// Copies `text` with its NUL; a buffer too short for all of it is NVML_ERROR_INSUFFICIENT_SIZE.
unsafe fn put_text(buf: *mut c_char, length: c_uint, text: &str) -> Result<(), nvmlReturn_t> {
    if buf.is_null() {
        return Err(NVML_ERROR_INVALID_ARGUMENT);
    }
    if (length as usize) < text.len() + 1 {
        return Err(NVML_ERROR_INSUFFICIENT_SIZE);
    }
    std::ptr::copy_nonoverlapping(text.as_ptr().cast::<c_char>(), buf, text.len());
    buf.add(text.len()).write(0);
    Ok(())
}

/// The settings and the physical index of `device`.
fn device(device: nvmlDevice_t) -> Result<(Config, u32), nvmlReturn_t> {
    let cfg = config()?;
    let index = index_of(&cfg, device)?;
    Ok((cfg, index))
}

gpudouble_state::export_marker!();

#[no_mangle]
pub unsafe extern "C" fn nvmlInit_v2() -> nvmlReturn_t {
    run("nvmlInit_v2", || {
        session::init();
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn nvmlInitWithFlags(_flags: c_uint) -> nvmlReturn_t {
    run("nvmlInitWithFlags", || {
        session::init();
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn nvmlShutdown() -> nvmlReturn_t {
    run("nvmlShutdown", session::shutdown)
}

const ERROR_TEXTS: &[(nvmlReturn_t, &CStr)] = &[
    (0, c"Success"),
    (1, c"Uninitialized"),
    (2, c"Invalid Argument"),
    (3, c"Not Supported"),
    (4, c"Insufficient Permissions"),
    (5, c"Already Initialized"),
    (6, c"Not Found"),
    (7, c"Insufficient Size"),
    (8, c"Insufficient External Power"),
    (9, c"Driver Not Loaded"),
    (10, c"Timeout"),
    (11, c"Interrupt Request Issue"),
    (12, c"NVML Shared Library Not Found"),
    (13, c"Function Not Found"),
    (14, c"Corrupted infoROM"),
    (15, c"GPU is lost"),
    (16, c"GPU requires restart"),
    (999, c"Unknown Error"),
];

/// Works without init; unknown codes read "Unknown Error".
#[no_mangle]
pub extern "C" fn nvmlErrorString(result: nvmlReturn_t) -> *const c_char {
    ERROR_TEXTS
        .iter()
        .find(|(code, _)| *code == result)
        .map_or(c"Unknown Error".as_ptr(), |(_, text)| text.as_ptr())
}

#[no_mangle]
pub unsafe extern "C" fn nvmlSystemGetDriverVersion(
    version: *mut c_char,
    length: c_uint,
) -> nvmlReturn_t {
    run("nvmlSystemGetDriverVersion", || {
        put_text(version, length, &config()?.driver_string)
    })
}

#[no_mangle]
pub unsafe extern "C" fn nvmlSystemGetCudaDriverVersion(version: *mut c_int) -> nvmlReturn_t {
    run("nvmlSystemGetCudaDriverVersion", || {
        put(version, config()?.driver_version)
    })
}

#[no_mangle]
pub unsafe extern "C" fn nvmlSystemGetCudaDriverVersion_v2(version: *mut c_int) -> nvmlReturn_t {
    run("nvmlSystemGetCudaDriverVersion_v2", || {
        put(version, config()?.driver_version)
    })
}

#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetCount_v2(count: *mut c_uint) -> nvmlReturn_t {
    run("nvmlDeviceGetCount_v2", || put(count, config()?.devices))
}

#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetHandleByIndex_v2(
    index: c_uint,
    device: *mut nvmlDevice_t,
) -> nvmlReturn_t {
    run("nvmlDeviceGetHandleByIndex_v2", || {
        if index >= config()?.devices {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        put(device, session::handle(index))
    })
}

#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetIndex(dev: nvmlDevice_t, index: *mut c_uint) -> nvmlReturn_t {
    run("nvmlDeviceGetIndex", || put(index, device(dev)?.1))
}

#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetName(
    dev: nvmlDevice_t,
    name: *mut c_char,
    length: c_uint,
) -> nvmlReturn_t {
    run("nvmlDeviceGetName", || {
        let (cfg, _) = device(dev)?;
        put_text(name, length, &cfg.name)
    })
}

#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetUUID(
    dev: nvmlDevice_t,
    uuid: *mut c_char,
    length: c_uint,
) -> nvmlReturn_t {
    run("nvmlDeviceGetUUID", || {
        let (_, index) = device(dev)?;
        put_text(uuid, length, &identity::uuid_string(index))
    })
}

/// (total, used) with used summed over the live pids' files; the double reserves nothing.
fn memory(cfg: &Config, index: u32) -> (u64, u64) {
    let used = layout::used_bytes(&cfg.state_dir, index).min(cfg.total_bytes);
    (cfg.total_bytes, used)
}

#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetMemoryInfo(
    dev: nvmlDevice_t,
    mem: *mut NvmlMemory,
) -> nvmlReturn_t {
    run("nvmlDeviceGetMemoryInfo", || {
        let (cfg, index) = device(dev)?;
        let (total, used) = memory(&cfg, index);
        put(
            mem,
            NvmlMemory {
                total,
                free: total - used,
                used,
            },
        )
    })
}

/// The caller's `version` must be NVML_STRUCT_VERSION(Memory, 2). The real library answers a
/// mismatch with NVML_ERROR_ARGUMENT_VERSION_MISMATCH (25), which is outside the codes this
/// double may return, so it says NVML_ERROR_INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetMemoryInfo_v2(
    dev: nvmlDevice_t,
    mem: *mut NvmlMemoryV2,
) -> nvmlReturn_t {
    run("nvmlDeviceGetMemoryInfo_v2", || {
        let (cfg, index) = device(dev)?;
        if mem.is_null() || (*mem).version != NVML_MEMORY_V2 {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        let (total, used) = memory(&cfg, index);
        put(
            mem,
            NvmlMemoryV2 {
                version: NVML_MEMORY_V2,
                total,
                reserved: 0,
                free: total - used,
                used,
            },
        )
    })
}

/// nvml.h: `*infoCount` is the buffer's capacity on input and the number of processes on
/// output. When the buffer is null or too small: NVML_ERROR_INSUFFICIENT_SIZE with the needed
/// count written; with no processes running, success and a count of 0.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetComputeRunningProcesses_v3(
    dev: nvmlDevice_t,
    info_count: *mut c_uint,
    infos: *mut NvmlProcessInfo,
) -> nvmlReturn_t {
    run("nvmlDeviceGetComputeRunningProcesses_v3", || {
        let (cfg, index) = device(dev)?;
        if info_count.is_null() {
            return Err(NVML_ERROR_INVALID_ARGUMENT);
        }
        let procs = layout::live_usage(&cfg.state_dir, index);
        let needed = procs.len() as c_uint;
        let capacity = if infos.is_null() { 0 } else { *info_count };
        *info_count = needed;
        if needed > capacity {
            return Err(NVML_ERROR_INSUFFICIENT_SIZE);
        }
        for (i, &(pid, bytes)) in procs.iter().enumerate() {
            infos.add(i).write(NvmlProcessInfo {
                pid: pid as u32,
                used_gpu_memory: bytes,
                gpu_instance_id: NVML_INVALID_ID,
                compute_instance_id: NVML_INVALID_ID,
            });
        }
        Ok(())
    })
}
