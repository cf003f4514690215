//! The exported C ABI (signatures as in cudarc 0.19's driver bindings). Every function returns
//! a documented CUresult: bodies run under catch_unwind, and GPUDOUBLE_FAIL is checked first.

// C names and C pointer contracts: the safety rules are cuda.h's.
#![allow(non_snake_case, clippy::missing_safety_doc)]

use std::ffi::{c_char, c_int, c_uint, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};

use gpudouble_state::{fail, identity, Config};

use crate::driver::{self, enter};
use crate::types::*;
use crate::{errors, events, memory};

/// Runs an exported function's body: failure injection, then the body; a panic becomes
/// CUDA_ERROR_UNKNOWN instead of unwinding into C.
fn run(symbol: &str, body: impl FnOnce() -> Result<(), CUresult>) -> CUresult {
    catch_unwind(AssertUnwindSafe(|| {
        if let Some(code) = fail::injected(symbol) {
            return sanitize(code);
        }
        body().err().unwrap_or(CUDA_SUCCESS)
    }))
    .unwrap_or(CUDA_ERROR_UNKNOWN)
}

/// An injected code outside the documented set would be undefined behaviour for a caller that
/// maps it to an enum, so it becomes CUDA_ERROR_UNKNOWN.
fn sanitize(code: i64) -> CUresult {
    u32::try_from(code)
        .ok()
        .filter(|c| RETURNED.contains(c))
        .unwrap_or(CUDA_ERROR_UNKNOWN)
}

/// Writes an out-parameter; null is CUDA_ERROR_INVALID_VALUE as in the real driver.
unsafe fn put<T>(out: *mut T, value: T) -> Result<(), CUresult> {
    if out.is_null() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    out.write(value);
    Ok(())
}

gpudouble_state::export_marker!();

#[no_mangle]
pub unsafe extern "C" fn cuInit(flags: c_uint) -> CUresult {
    run("cuInit", || driver::init(flags))
}

/// Works without cuInit, like the real one.
#[no_mangle]
pub unsafe extern "C" fn cuDriverGetVersion(version: *mut c_int) -> CUresult {
    run("cuDriverGetVersion", || {
        put(version, Config::from_env().driver_version)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetCount(count: *mut c_int) -> CUresult {
    run("cuDeviceGetCount", || put(count, enter()?.count() as c_int))
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGet(device: *mut CUdevice, ordinal: c_int) -> CUresult {
    run("cuDeviceGet", || {
        enter()?.physical(ordinal)?;
        put(device, ordinal)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetName(name: *mut c_char, len: c_int, dev: CUdevice) -> CUresult {
    run("cuDeviceGetName", || {
        let d = enter()?;
        d.physical(dev)?;
        if name.is_null() || len <= 0 {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        // Truncated to the buffer, always NUL-terminated.
        let text = d.cfg.name.as_bytes();
        let n = text.len().min(len as usize - 1);
        std::ptr::copy_nonoverlapping(text.as_ptr().cast::<c_char>(), name, n);
        name.add(n).write(0);
        Ok(())
    })
}

unsafe fn device_uuid(uuid: *mut CUuuid, dev: CUdevice) -> Result<(), CUresult> {
    let physical = enter()?.physical(dev)?;
    let bytes = identity::uuid_bytes(physical).map(|b| b as c_char);
    put(uuid, CUuuid { bytes })
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetUuid(uuid: *mut CUuuid, dev: CUdevice) -> CUresult {
    run("cuDeviceGetUuid", || device_uuid(uuid, dev))
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetUuid_v2(uuid: *mut CUuuid, dev: CUdevice) -> CUresult {
    run("cuDeviceGetUuid_v2", || device_uuid(uuid, dev))
}

#[no_mangle]
pub unsafe extern "C" fn cuDeviceTotalMem_v2(bytes: *mut usize, dev: CUdevice) -> CUresult {
    run("cuDeviceTotalMem_v2", || {
        let d = enter()?;
        d.physical(dev)?;
        put(bytes, d.cfg.total_bytes as usize)
    })
}

/// Not in the required list, but cudarc's CudaContext::new asks for attribute 115 (memory
/// pools): 0 makes it use cuMemAlloc_v2. Other attributes: an H100's values where known, else 0.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetAttribute(
    pi: *mut c_int,
    attrib: c_int,
    dev: CUdevice,
) -> CUresult {
    run("cuDeviceGetAttribute", || {
        enter()?.physical(dev)?;
        let value = match attrib {
            CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT => 132,
            CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR => 9,
            CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR => 0,
            CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED => 0,
            _ => 0,
        };
        put(pi, value)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxRetain(pctx: *mut CUcontext, dev: CUdevice) -> CUresult {
    run("cuDevicePrimaryCtxRetain", || {
        let d = enter()?;
        if pctx.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        put(pctx, d.retain(dev)?)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxRelease_v2(dev: CUdevice) -> CUresult {
    run("cuDevicePrimaryCtxRelease_v2", || enter()?.release(dev))
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxSetCurrent(ctx: CUcontext) -> CUresult {
    run("cuCtxSetCurrent", || enter()?.set_current(ctx))
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxGetCurrent(pctx: *mut CUcontext) -> CUresult {
    run("cuCtxGetCurrent", || put(pctx, enter()?.get_current()))
}

#[no_mangle]
pub unsafe extern "C" fn cuCtxGetDevice(device: *mut CUdevice) -> CUresult {
    run("cuCtxGetDevice", || put(device, enter()?.current()?))
}

/// All work is synchronous, so there is nothing to wait for; it still needs a context.
#[no_mangle]
pub unsafe extern "C" fn cuCtxSynchronize() -> CUresult {
    run("cuCtxSynchronize", || enter()?.current().map(|_| ()))
}

/// Extra: the default (null) stream or any other stream is already idle.
#[no_mangle]
pub unsafe extern "C" fn cuStreamSynchronize(_stream: CUstream) -> CUresult {
    run("cuStreamSynchronize", || enter()?.current().map(|_| ()))
}

#[no_mangle]
pub unsafe extern "C" fn cuMemAlloc_v2(dptr: *mut CUdeviceptr, bytesize: usize) -> CUresult {
    run("cuMemAlloc_v2", || {
        let d = enter()?;
        if dptr.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        put(dptr, memory::alloc(d, bytesize)?)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuMemFree_v2(dptr: CUdeviceptr) -> CUresult {
    run("cuMemFree_v2", || memory::free(enter()?, dptr))
}

unsafe fn memset(dst: CUdeviceptr, uc: u8, n: usize) -> Result<(), CUresult> {
    memory::with_range(enter()?, dst, n, |p| std::ptr::write_bytes(p, uc, n))
}

unsafe fn htod(dst: CUdeviceptr, src: *const c_void, n: usize) -> Result<(), CUresult> {
    let d = enter()?;
    if src.is_null() && n > 0 {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    memory::with_range(d, dst, n, |p| {
        std::ptr::copy_nonoverlapping(src.cast::<u8>(), p, n)
    })
}

unsafe fn dtoh(dst: *mut c_void, src: CUdeviceptr, n: usize) -> Result<(), CUresult> {
    let d = enter()?;
    if dst.is_null() && n > 0 {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    memory::with_range(d, src, n, |p| {
        std::ptr::copy_nonoverlapping(p, dst.cast::<u8>(), n)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuMemsetD8_v2(dst: CUdeviceptr, uc: u8, n: usize) -> CUresult {
    run("cuMemsetD8_v2", || memset(dst, uc, n))
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpyHtoD_v2(
    dst: CUdeviceptr,
    src: *const c_void,
    n: usize,
) -> CUresult {
    run("cuMemcpyHtoD_v2", || htod(dst, src, n))
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpyDtoH_v2(dst: *mut c_void, src: CUdeviceptr, n: usize) -> CUresult {
    run("cuMemcpyDtoH_v2", || dtoh(dst, src, n))
}

// Extras: cudarc's CudaStream uses the async forms. Work is synchronous here, so they complete
// before returning and the stream is not consulted.

#[no_mangle]
pub unsafe extern "C" fn cuMemsetD8Async(
    dst: CUdeviceptr,
    uc: u8,
    n: usize,
    _stream: CUstream,
) -> CUresult {
    run("cuMemsetD8Async", || memset(dst, uc, n))
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpyHtoDAsync_v2(
    dst: CUdeviceptr,
    src: *const c_void,
    n: usize,
    _stream: CUstream,
) -> CUresult {
    run("cuMemcpyHtoDAsync_v2", || htod(dst, src, n))
}

#[no_mangle]
pub unsafe extern "C" fn cuMemcpyDtoHAsync_v2(
    dst: *mut c_void,
    src: CUdeviceptr,
    n: usize,
    _stream: CUstream,
) -> CUresult {
    run("cuMemcpyDtoHAsync_v2", || dtoh(dst, src, n))
}

/// Extra: an event is always complete, so waiting on it is immediate.
#[no_mangle]
pub unsafe extern "C" fn cuStreamWaitEvent(
    _stream: CUstream,
    event: CUevent,
    _flags: c_uint,
) -> CUresult {
    run("cuStreamWaitEvent", || {
        enter()?;
        events::check(event)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuMemGetInfo_v2(free: *mut usize, total: *mut usize) -> CUresult {
    run("cuMemGetInfo_v2", || {
        let d = enter()?;
        if free.is_null() || total.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        let (f, t) = memory::info(d)?;
        put(free, f)?;
        put(total, t)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuEventCreate(ph_event: *mut CUevent, flags: c_uint) -> CUresult {
    run("cuEventCreate", || {
        let d = enter()?;
        if ph_event.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        put(ph_event, events::create(d, flags)?)
    })
}

/// Any stream is accepted: work is synchronous, so recording time is completion time.
#[no_mangle]
pub unsafe extern "C" fn cuEventRecord(event: CUevent, _stream: CUstream) -> CUresult {
    run("cuEventRecord", || {
        enter()?;
        events::record(event)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuEventSynchronize(event: CUevent) -> CUresult {
    run("cuEventSynchronize", || {
        enter()?;
        events::check(event)
    })
}

/// Extra: every event is complete.
#[no_mangle]
pub unsafe extern "C" fn cuEventQuery(event: CUevent) -> CUresult {
    run("cuEventQuery", || {
        enter()?;
        events::check(event)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuEventElapsedTime(
    ms: *mut f32,
    start: CUevent,
    end: CUevent,
) -> CUresult {
    run("cuEventElapsedTime", || {
        enter()?;
        if ms.is_null() {
            return Err(CUDA_ERROR_INVALID_VALUE);
        }
        put(ms, events::elapsed(start, end)?)
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuEventDestroy_v2(event: CUevent) -> CUresult {
    run("cuEventDestroy_v2", || {
        enter()?;
        events::destroy(event)
    })
}

/// Works without cuInit and in a forked child (the real one needs no driver state). Unknown
/// code: CUDA_ERROR_INVALID_VALUE and *pstr = NULL, as cuda.h documents.
unsafe fn error_text(code: CUresult, pstr: *mut *const c_char, name: bool) -> Result<(), CUresult> {
    if pstr.is_null() {
        return Err(CUDA_ERROR_INVALID_VALUE);
    }
    match errors::describe(code) {
        Some((n, t)) => put(pstr, if name { n.as_ptr() } else { t.as_ptr() }),
        None => {
            pstr.write(std::ptr::null());
            Err(CUDA_ERROR_INVALID_VALUE)
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn cuGetErrorName(error: CUresult, pstr: *mut *const c_char) -> CUresult {
    run("cuGetErrorName", || error_text(error, pstr, true))
}

#[no_mangle]
pub unsafe extern "C" fn cuGetErrorString(error: CUresult, pstr: *mut *const c_char) -> CUresult {
    run("cuGetErrorString", || error_text(error, pstr, false))
}
