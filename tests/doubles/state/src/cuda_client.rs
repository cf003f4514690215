//! A minimal client of the CUDA driver API loaded with dlopen, as NCCL (through the CUDA runtime)
//! uses it. When the library is the same file as one already loaded (say by cudarc under another
//! name), glibc returns that copy, so the caller shares its state: current context, contexts.

use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::sync::OnceLock;

/// Where the client loads the driver from unless `GPUDOUBLE_LIBCUDA` says otherwise.
pub const DEFAULT_LIBCUDA: &str = "libcuda.so.1";

pub type CuResult = c_uint;
pub type CuContext = *mut c_void;

// Signatures as in cuda.h.
pub type InitFn = unsafe extern "C" fn(c_uint) -> CuResult;
pub type DeviceGetFn = unsafe extern "C" fn(*mut c_int, c_int) -> CuResult;
pub type DeviceGetUuidFn = unsafe extern "C" fn(*mut [c_char; 16], c_int) -> CuResult;
pub type PrimaryCtxRetainFn = unsafe extern "C" fn(*mut CuContext, c_int) -> CuResult;
pub type PrimaryCtxReleaseFn = unsafe extern "C" fn(c_int) -> CuResult;
pub type CtxSetCurrentFn = unsafe extern "C" fn(CuContext) -> CuResult;
pub type CtxGetDeviceFn = unsafe extern "C" fn(*mut c_int) -> CuResult;
pub type MemAllocFn = unsafe extern "C" fn(*mut u64, usize) -> CuResult;
pub type MemFreeFn = unsafe extern "C" fn(u64) -> CuResult;
pub type MemcpyHtoDFn = unsafe extern "C" fn(u64, *const c_void, usize) -> CuResult;
pub type MemcpyDtoHFn = unsafe extern "C" fn(*mut c_void, u64, usize) -> CuResult;
pub type GetErrorStringFn = unsafe extern "C" fn(CuResult, *mut *const c_char) -> CuResult;

/// The driver calls NCCL's double and the tests need.
pub struct CudaClient {
    pub init: InitFn,
    pub device_get: DeviceGetFn,
    pub device_get_uuid: DeviceGetUuidFn,
    pub primary_ctx_retain: PrimaryCtxRetainFn,
    pub primary_ctx_release: PrimaryCtxReleaseFn,
    pub ctx_set_current: CtxSetCurrentFn,
    pub ctx_get_device: CtxGetDeviceFn,
    pub mem_alloc: MemAllocFn,
    pub mem_free: MemFreeFn,
    pub memcpy_htod: MemcpyHtoDFn,
    pub memcpy_dtoh: MemcpyDtoHFn,
    pub get_error_string: GetErrorStringFn,
}

// The struct holds only function pointers into a library that is never unloaded.
unsafe impl Send for CudaClient {}
unsafe impl Sync for CudaClient {}

impl CudaClient {
    /// Loads `path` (a name searched on LD_LIBRARY_PATH, or a path) and resolves the calls.
    /// The handle is never closed, so the function pointers stay valid.
    pub fn open(path: &str) -> Result<CudaClient, String> {
        let c_path = CString::new(path).map_err(|_| format!("bad library path {path:?}"))?;
        // SAFETY: a valid C string; dlopen runs the library's initialisers, which ours lacks.
        let handle = unsafe { libc::dlopen(c_path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if handle.is_null() {
            return Err(format!("cannot load {path}: {}", dl_error()));
        }
        let sym = |name: &str| -> Result<*mut c_void, String> {
            let c_name = CString::new(name).expect("symbol names have no NUL");
            // SAFETY: handle came from dlopen and is still open.
            let p = unsafe { libc::dlsym(handle, c_name.as_ptr()) };
            if p.is_null() {
                Err(format!("{path} lacks {name}"))
            } else {
                Ok(p)
            }
        };
        // SAFETY: each symbol has the C signature declared for its field (cuda.h).
        unsafe {
            Ok(CudaClient {
                init: std::mem::transmute::<*mut c_void, InitFn>(sym("cuInit")?),
                device_get: std::mem::transmute::<*mut c_void, DeviceGetFn>(sym("cuDeviceGet")?),
                device_get_uuid: std::mem::transmute::<*mut c_void, DeviceGetUuidFn>(sym(
                    "cuDeviceGetUuid",
                )?),
                primary_ctx_retain: std::mem::transmute::<*mut c_void, PrimaryCtxRetainFn>(sym(
                    "cuDevicePrimaryCtxRetain",
                )?),
                primary_ctx_release: std::mem::transmute::<*mut c_void, PrimaryCtxReleaseFn>(sym(
                    "cuDevicePrimaryCtxRelease_v2",
                )?),
                ctx_set_current: std::mem::transmute::<*mut c_void, CtxSetCurrentFn>(sym(
                    "cuCtxSetCurrent",
                )?),
                ctx_get_device: std::mem::transmute::<*mut c_void, CtxGetDeviceFn>(sym(
                    "cuCtxGetDevice",
                )?),
                mem_alloc: std::mem::transmute::<*mut c_void, MemAllocFn>(sym("cuMemAlloc_v2")?),
                mem_free: std::mem::transmute::<*mut c_void, MemFreeFn>(sym("cuMemFree_v2")?),
                memcpy_htod: std::mem::transmute::<*mut c_void, MemcpyHtoDFn>(sym(
                    "cuMemcpyHtoD_v2",
                )?),
                memcpy_dtoh: std::mem::transmute::<*mut c_void, MemcpyDtoHFn>(sym(
                    "cuMemcpyDtoH_v2",
                )?),
                get_error_string: std::mem::transmute::<*mut c_void, GetErrorStringFn>(sym(
                    "cuGetErrorString",
                )?),
            })
        }
    }

    /// The driver named by `GPUDOUBLE_LIBCUDA` (default libcuda.so.1), loaded once per process.
    pub fn shared() -> Result<&'static CudaClient, String> {
        static CLIENT: OnceLock<Result<CudaClient, String>> = OnceLock::new();
        CLIENT
            .get_or_init(|| {
                let path = std::env::var("GPUDOUBLE_LIBCUDA")
                    .ok()
                    .filter(|p| !p.is_empty())
                    .unwrap_or_else(|| DEFAULT_LIBCUDA.into());
                CudaClient::open(&path)
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The driver's text for `code` ("initialization error"), or the number.
    pub fn error_text(&self, code: CuResult) -> String {
        let mut text: *const c_char = std::ptr::null();
        // SAFETY: text is a valid out-pointer; on success it points at a static C string.
        let rc = unsafe { (self.get_error_string)(code, &mut text) };
        if rc != 0 || text.is_null() {
            return format!("CUDA error {code}");
        }
        // SAFETY: checked non-null above; the driver's strings are NUL-terminated and static.
        unsafe { CStr::from_ptr(text) }
            .to_string_lossy()
            .into_owned()
    }
}

fn dl_error() -> String {
    // SAFETY: dlerror returns null or a NUL-terminated message.
    let msg = unsafe { libc::dlerror() };
    if msg.is_null() {
        "unknown dlopen error".into()
    } else {
        // SAFETY: non-null, NUL-terminated.
        unsafe { CStr::from_ptr(msg) }
            .to_string_lossy()
            .into_owned()
    }
}
