//! The few CUDA driver calls the probe makes, through cudarc's raw bindings, each returning the
//! driver's own error code so the report can quote it. Call only after `libs::cuda_present()`:
//! cudarc panics when the library or a symbol is missing.

use std::ffi::{c_char, CStr};
use std::mem::MaybeUninit;

use cudarc::driver::sys::{self, CUresult};

/// A driver call that failed: which call, and the driver's code, name and text.
#[derive(Debug, Clone)]
pub struct CuError {
    pub call: &'static str,
    pub code: i32,
    pub name: String,
    pub text: String,
}

impl std::fmt::Display for CuError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} → {} {} \"{}\"",
            self.call, self.code, self.name, self.text
        )
    }
}

pub type Cu<T> = Result<T, CuError>;

fn c_text(ptr: *const c_char) -> Option<String> {
    // SAFETY: the driver hands back a static NUL-terminated string, or leaves the pointer null.
    (!ptr.is_null()).then(|| {
        unsafe { CStr::from_ptr(ptr) }
            .to_string_lossy()
            .into_owned()
    })
}

/// The driver's name and text for a result code.
pub fn describe(result: CUresult) -> (String, String) {
    describe_raw(result as u32)
}

/// The driver's name and text for a raw result code, such as one a forked child sent back. Goes
/// through the symbols directly: turning an unknown number into cudarc's enum would be undefined.
pub fn describe_raw(code: u32) -> (String, String) {
    type Describe = unsafe extern "C" fn(u32, *mut *const c_char) -> u32;
    // SAFETY: the library is loaded (the caller made driver calls); both symbols have this C
    // signature, with the enum passed as its underlying unsigned int.
    let lookup = |symbol: &[u8]| unsafe {
        let f = cudarc::driver::sys::culib().get::<Describe>(symbol).ok()?;
        let mut p: *const c_char = std::ptr::null();
        f(code, &mut p);
        c_text(p)
    };
    (
        lookup(b"cuGetErrorName\0").unwrap_or_else(|| format!("CUresult {code}")),
        lookup(b"cuGetErrorString\0").unwrap_or_default(),
    )
}

pub fn check(call: &'static str, result: CUresult) -> Cu<()> {
    if result == CUresult::CUDA_SUCCESS {
        return Ok(());
    }
    let (name, text) = describe(result);
    Err(CuError {
        call,
        code: result as i32,
        name,
        text,
    })
}

pub fn init() -> Cu<()> {
    // SAFETY: plain driver call.
    check("cuInit", unsafe { sys::cuInit(0) })
}

/// The driver API version, e.g. 12080 for CUDA 12.8. Works before `cuInit`.
pub fn driver_version() -> Cu<i32> {
    let mut v = 0;
    // SAFETY: writes one int.
    check("cuDriverGetVersion", unsafe {
        sys::cuDriverGetVersion(&mut v)
    })?;
    Ok(v)
}

pub fn device_count() -> Cu<i32> {
    let mut n = 0;
    // SAFETY: writes one int.
    check("cuDeviceGetCount", unsafe { sys::cuDeviceGetCount(&mut n) })?;
    Ok(n)
}

pub fn device(ordinal: i32) -> Cu<sys::CUdevice> {
    let mut dev = 0;
    // SAFETY: writes one int.
    check("cuDeviceGet", unsafe {
        sys::cuDeviceGet(&mut dev, ordinal)
    })?;
    Ok(dev)
}

pub fn device_name(dev: sys::CUdevice) -> Cu<String> {
    let mut buf = [0 as c_char; 256];
    // SAFETY: the driver writes at most `len` bytes, NUL-terminated.
    check("cuDeviceGetName", unsafe {
        sys::cuDeviceGetName(buf.as_mut_ptr(), buf.len() as i32, dev)
    })?;
    Ok(c_text(buf.as_ptr()).unwrap_or_default())
}

/// The device's UUID in NVML's spelling (`GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`), which is how
/// a CUDA ordinal is matched to an NVML index.
pub fn device_uuid(dev: sys::CUdevice) -> Cu<String> {
    let mut uuid = MaybeUninit::<sys::CUuuid>::zeroed();
    // SAFETY: writes the 16-byte struct.
    check("cuDeviceGetUuid", unsafe {
        sys::cuDeviceGetUuid(uuid.as_mut_ptr(), dev)
    })?;
    // SAFETY: zeroed, then written by the driver.
    let bytes = unsafe { uuid.assume_init() }.bytes.map(|b| b as u8);
    Ok(format_uuid(&bytes))
}

pub fn format_uuid(b: &[u8; 16]) -> String {
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "GPU-{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

pub fn total_mem(dev: sys::CUdevice) -> Cu<usize> {
    let mut bytes = 0;
    // SAFETY: writes one size.
    check("cuDeviceTotalMem", unsafe {
        sys::cuDeviceTotalMem_v2(&mut bytes, dev)
    })?;
    Ok(bytes)
}

/// Retains the device's primary context and makes it current on this thread: what
/// `torch.cuda.set_device(n)` followed by the first CUDA use amounts to.
pub fn use_device(dev: sys::CUdevice) -> Cu<sys::CUcontext> {
    let mut ctx = std::ptr::null_mut();
    // SAFETY: writes one handle; the context stays retained until the process ends.
    check("cuDevicePrimaryCtxRetain", unsafe {
        sys::cuDevicePrimaryCtxRetain(&mut ctx, dev)
    })?;
    // SAFETY: the handle was just returned by the driver.
    check("cuCtxSetCurrent", unsafe { sys::cuCtxSetCurrent(ctx) })?;
    Ok(ctx)
}

pub fn alloc(bytes: usize) -> Cu<sys::CUdeviceptr> {
    let mut ptr = 0;
    // SAFETY: writes one device pointer.
    check("cuMemAlloc", unsafe { sys::cuMemAlloc_v2(&mut ptr, bytes) })?;
    // Touch it, so the allocation is really backed.
    // SAFETY: `ptr` spans `bytes` bytes.
    check("cuMemsetD8", unsafe { sys::cuMemsetD8_v2(ptr, 0, bytes) })?;
    Ok(ptr)
}

pub fn copy_to_device(dst: sys::CUdeviceptr, src: &[f32]) -> Cu<()> {
    // SAFETY: the caller allocated `dst` with at least `size_of_val(src)` bytes.
    check("cuMemcpyHtoD", unsafe {
        sys::cuMemcpyHtoD_v2(dst, src.as_ptr().cast(), std::mem::size_of_val(src))
    })
}

pub fn copy_to_host(dst: &mut [f32], src: sys::CUdeviceptr) -> Cu<()> {
    // SAFETY: the caller allocated `src` with at least `size_of_val(dst)` bytes.
    check("cuMemcpyDtoH", unsafe {
        sys::cuMemcpyDtoH_v2(dst.as_mut_ptr().cast(), src, std::mem::size_of_val(dst))
    })
}

pub fn synchronize() -> Cu<()> {
    // SAFETY: plain driver call.
    check("cuCtxSynchronize", unsafe { sys::cuCtxSynchronize() })
}

/// A timing event on the null stream (`CU_EVENT_DEFAULT`: the disable-timing flag would make
/// `cuEventElapsedTime` fail).
pub struct Event(sys::CUevent);

impl Event {
    pub fn record() -> Cu<Event> {
        let mut ev = std::ptr::null_mut();
        // SAFETY: writes one handle.
        check("cuEventCreate", unsafe {
            sys::cuEventCreate(&mut ev, sys::CUevent_flags::CU_EVENT_DEFAULT as u32)
        })?;
        // SAFETY: the event was just created; null is the legacy default stream.
        check("cuEventRecord", unsafe {
            sys::cuEventRecord(ev, std::ptr::null_mut())
        })?;
        Ok(Event(ev))
    }

    /// Milliseconds from `self` to `end`, once `end` has completed.
    pub fn elapsed_ms(&self, end: &Event) -> Cu<f32> {
        let mut ms = 0.0;
        // SAFETY: both events were created and recorded by this process.
        unsafe {
            check("cuEventSynchronize", sys::cuEventSynchronize(end.0))?;
            check(
                "cuEventElapsedTime",
                sys::cuEventElapsedTime(&mut ms, self.0, end.0),
            )?;
        }
        Ok(ms)
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: created by this process; a failure here changes nothing we report.
        unsafe { sys::cuEventDestroy_v2(self.0) };
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn uuids_are_spelled_as_nvml_spells_them() {
        let bytes: [u8; 16] = [
            0x67, 0x70, 0x75, 0x64, 0x6f, 0x75, 0x62, 0x6c, 0x65, 0, 0, 0, 0, 0, 0, 1,
        ];
        assert_eq!(
            super::format_uuid(&bytes),
            "GPU-67707564-6f75-626c-6500-000000000001"
        );
    }
}
